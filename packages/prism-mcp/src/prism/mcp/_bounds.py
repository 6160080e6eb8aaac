"""The one place prism-mcp validates bound options: counts, bytes and seconds."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["check_count", "check_seconds", "count_bound", "seconds_bound"]


def check_count(name: str, value: object, *, cap: int) -> int:
    """Return ``value`` if it is an ``int`` (not ``bool``) in ``[1, cap]``; else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int in [1, {cap}] (hard cap {cap}), got {value!r}")
    if value < 1 or value > cap:
        raise ValueError(f"{name} must be in [1, {cap}] (hard cap {cap}), got {value}")
    return value


def check_seconds(name: str, value: object, *, cap: float) -> float:
    """Return ``value`` as a float if it is a finite number in ``(0, cap]``; else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"{name} must be a number of seconds in (0, {cap}] (hard cap {cap}), got {value!r}"
        )
    if not math.isfinite(value) or value <= 0 or value > cap:
        raise ValueError(f"{name} must be in (0, {cap}] seconds (hard cap {cap}), got {value}")
    return float(value)


def count_bound(cap: int) -> Callable[[Any, Any, object], None]:
    """An attrs validator enforcing ``check_count`` with the attribute's name."""

    def validate(_instance: Any, attribute: Any, value: object) -> None:
        check_count(attribute.name, value, cap=cap)

    return validate


def seconds_bound(cap: float) -> Callable[[Any, Any, object], None]:
    """An attrs validator enforcing ``check_seconds`` with the attribute's name."""

    def validate(_instance: Any, attribute: Any, value: object) -> None:
        check_seconds(attribute.name, value, cap=cap)

    return validate
