"""The one way every Prism package checks its options: bounded counts and seconds, choices,
flags and callables, each failing with ``ValueError`` in one message format.

Use these from an options dataclass's ``__post_init__``, naming the field as ``Owner.field``::

    @dataclass(frozen=True, slots=True)
    class ShellOptions:
        max_output_bytes: int = 1 * MIB

        def __post_init__(self) -> None:
            check_count("ShellOptions.max_output_bytes", self.max_output_bytes, cap=1 * GIB)

The message is always ``"<where> must be <rule>, got <value>"`` so an operator can find the field.
"""

from __future__ import annotations

import math

__all__ = [
    "GIB",
    "KIB",
    "MIB",
    "check_callable",
    "check_choice",
    "check_count",
    "check_flag",
    "check_match",
    "check_seconds",
]

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Collection


def _fail(where: str, rule: str, value: object) -> ValueError:
    shown = repr(value)
    if len(shown) > 200:
        shown = shown[:200] + "…"
    return ValueError(f"{where} must be {rule}, got {shown}")


def check_count(where: str, value: object, *, cap: int, minimum: int = 1) -> int:
    """``value`` if it is an ``int`` (not ``bool``) in ``[minimum, cap]``, else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= cap:
        raise _fail(where, f"an int from {minimum:,} to {cap:,} (hard cap)", value)
    return value


def check_seconds(where: str, value: object, *, cap: float, minimum: float = 0.0) -> float:
    """``value`` as ``float`` if it is finite seconds in ``(0, cap]`` (or ``[minimum, cap]``
    when ``minimum`` is above 0), else ``ValueError``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not (minimum <= value if minimum > 0 else value > 0)
        or value > cap
    ):
        low = f"from {minimum:g}" if minimum > 0 else "above 0"
        raise _fail(
            where, f"a finite number of seconds {low} and at most {cap:g} (hard cap)", value
        )
    return float(value)


def check_flag(where: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False`` (no truthy stand-ins), else ``ValueError``."""
    if not isinstance(value, bool):
        raise _fail(where, "True or False", value)
    return value


def check_choice(where: str, value: object, allowed: Collection[str]) -> str:
    """``value`` if it is one of ``allowed``, else ``ValueError`` listing them."""
    if not isinstance(value, str) or value not in allowed:
        raise _fail(where, "one of " + ", ".join(repr(a) for a in sorted(allowed)), value)
    return value


def check_match(where: str, value: object, pattern: re.Pattern[str]) -> str:
    """``value`` if it is a string ``pattern`` matches in full, else ``ValueError``."""
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise _fail(where, f"a string matching {pattern.pattern}", value)
    return value


def check_callable(where: str, value: object, *, optional: bool = False) -> object:
    """``value`` if it is callable (or ``None`` when ``optional``), else ``ValueError``."""
    if (value is None and optional) or callable(value):
        return value
    raise _fail(where, "callable" + (" or None" if optional else ""), value)
