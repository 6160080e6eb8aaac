"""Construction-time validation of bound options (the one place these rules live)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["bounded_int", "bounded_seconds"]

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


def _owner(instance: object, attribute: attrs.Attribute[Any]) -> str:
    return f"{type(instance).__name__}.{attribute.name}"


def bounded_int(cap: int) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """An attrs validator: an ``int`` (not ``bool``) in ``[1, cap]``, else ``ValueError``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= cap:
            raise ValueError(
                f"{_owner(instance, attribute)} must be an int from 1 to {cap:,} "
                f"(hard cap {cap:,}), got {value!r}"
            )

    return check


def bounded_seconds(cap: float) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """An attrs validator: a finite number of seconds in ``(0, cap]``, else ``ValueError``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 < value <= cap
        ):
            raise ValueError(
                f"{_owner(instance, attribute)} must be a finite number of seconds above 0 and "
                f"at most {cap:g} (hard cap {cap:g}), got {value!r}"
            )

    return check
