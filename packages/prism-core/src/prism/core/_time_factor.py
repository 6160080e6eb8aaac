"""One factor that scales every wall-clock bound of the tests and the conformance rows.

A correct subject on a slow or loaded CI must not fail a deadline written for a quiet laptop:
``PRISM_TEST_TIME_FACTOR`` (a finite number from 1 to 100, default 1) multiplies each bound.
"""

from __future__ import annotations

import math
import os

__all__ = ["TIME_FACTOR_ENV", "check_time_factor", "scaled", "set_time_factor", "time_factor"]

TIME_FACTOR_ENV = "PRISM_TEST_TIME_FACTOR"
"""The environment variable holding the factor; child processes inherit it."""

_MAX_FACTOR = 100.0


def check_time_factor(where: str, value: object) -> float:
    """``value`` (a number or its text) as a factor in ``[1, 100]``, else ``ValueError``."""
    number: float | None = None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    if number is None or not math.isfinite(number) or not 1 <= number <= _MAX_FACTOR:
        shown = repr(value)[:200]
        raise ValueError(
            f"{where} must be a finite number from 1 to {_MAX_FACTOR:g} "
            f"(how many times slower this machine may be), got {shown}"
        )
    return number


def time_factor() -> float:
    """The factor from ``PRISM_TEST_TIME_FACTOR`` (1 when unset); a bad value is refused."""
    raw = os.environ.get(TIME_FACTOR_ENV)
    if raw is None or raw == "":
        return 1.0
    return check_time_factor(TIME_FACTOR_ENV, raw)


def set_time_factor(value: object, *, where: str) -> float:
    """Check ``value`` (``where`` names the option it came from) and make it the factor."""
    factor = check_time_factor(where, value)
    os.environ[TIME_FACTOR_ENV] = repr(factor)
    return factor


def scaled(seconds: float) -> float:
    """``seconds`` times the time factor: the bound to use for a wall-clock deadline."""
    return seconds * time_factor()
