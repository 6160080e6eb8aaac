"""Option validation shared by the policy and the sandbox (one place, one wording)."""

from __future__ import annotations

import math

__all__ = ["check_bool", "check_count", "check_seconds"]


def check_bool(name: str, value: object) -> bool:
    """``value`` must be a real ``bool`` (not a truthy stand-in)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def check_count(name: str, value: object, *, cap: int) -> int:
    """An int in ``[1, cap]`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int between 1 and {cap:,}, got {value!r}")
    if value < 1 or value > cap:
        raise ValueError(f"{name} must be between 1 and {cap:,} (the cap), got {value:,}")
    return value


def check_seconds(name: str, value: object, *, cap: float) -> float:
    """A finite number of seconds in ``(0, cap]`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number of seconds, got {value!r}")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0 or seconds > cap:
        raise ValueError(f"{name} must be > 0 and at most {cap:g} seconds (the cap), got {value!r}")
    return seconds
