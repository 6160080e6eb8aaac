"""Validation of bound options: ints and seconds with defaults and hard caps."""

from __future__ import annotations

import math

__all__ = ["check_count", "check_seconds"]


def check_count(name: str, value: object, *, cap: int, minimum: int = 1) -> int:
    """Return ``value`` if it is an int in ``[minimum, cap]``; else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int in [{minimum}, {cap}], got {value!r}")
    if value < minimum or value > cap:
        raise ValueError(f"{name} must be in [{minimum}, {cap}] (hard cap {cap}), got {value}")
    return value


def check_seconds(name: str, value: object, *, cap: float) -> float:
    """Return ``value`` as float if it is a finite number in ``(0, cap]``; else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number of seconds in (0, {cap}], got {value!r}")
    if not math.isfinite(value) or value <= 0 or value > cap:
        raise ValueError(f"{name} must be in (0, {cap}] seconds (hard cap {cap}), got {value}")
    return float(value)
