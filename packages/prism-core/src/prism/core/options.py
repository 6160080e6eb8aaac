"""The one way every Prism package checks its options: bounded counts and seconds, choices,
flags, callables and instances, failing with ``TypeError`` for a value of the wrong type and
``ValueError`` for a value of the right type that breaks the rule, in one message format.

Use these from an options dataclass's ``__post_init__``, naming the field as ``Owner.field``::

    @dataclass(frozen=True, slots=True)
    class ShellOptions:
        max_output_bytes: int = 1 * MIB

        def __post_init__(self) -> None:
            check_count("ShellOptions.max_output_bytes", self.max_output_bytes, cap=1 * GIB)

The message is always ``"<where> must be <rule>, got <value>"`` so an operator can find the field.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "GIB",
    "KIB",
    "MIB",
    "check_callable",
    "check_choice",
    "check_count",
    "check_flag",
    "check_instance",
    "check_items",
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
    from typing import TypeVar

    _T = TypeVar("_T")


def _fail(where: str, rule: str, value: object, *, wrong_type: bool = False) -> Exception:
    """``"<where> must be <rule>, got <value>"`` as ``TypeError`` or ``ValueError``."""
    shown = repr(value)
    if len(shown) > 200:
        shown = shown[:200] + "…"
    error = TypeError if wrong_type else ValueError
    return error(f"{where} must be {rule}, got {shown}")


def _count_rule(minimum: int, cap: int) -> str:
    return f"an int from {minimum:,} to {cap:,} (hard cap)"


def _seconds_rule(minimum: float, cap: float) -> str:
    low = f"from {minimum:g}" if minimum > 0 else "above 0"
    return f"a finite number of seconds {low} and at most {cap:g} (hard cap)"


def check_count(where: str, value: object, *, cap: int, minimum: int = 1) -> int:
    """``value`` if it is an ``int`` (not ``bool``) in ``[minimum, cap]``; ``TypeError`` for
    another type, ``ValueError`` outside the range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, _count_rule(minimum, cap), value, wrong_type=True)
    if not minimum <= value <= cap:
        raise _fail(where, _count_rule(minimum, cap), value)
    return value


def check_seconds(where: str, value: object, *, cap: float, minimum: float = 0.0) -> float:
    """``value`` as ``float`` if it is finite seconds in ``(0, cap]`` (or ``[minimum, cap]``
    when ``minimum`` is above 0); ``TypeError`` if not a number, else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(where, _seconds_rule(minimum, cap), value, wrong_type=True)
    from math import isfinite  # an extension module: loaded by the first check, not on import

    if not isfinite(value) or not (minimum <= value if minimum > 0 else value > 0) or value > cap:
        raise _fail(where, _seconds_rule(minimum, cap), value)
    return float(value)


def check_flag(where: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False`` (no truthy stand-ins), else ``TypeError``."""
    if not isinstance(value, bool):
        raise _fail(where, "True or False", value, wrong_type=True)
    return value


def check_choice(where: str, value: object, allowed: Collection[str]) -> str:
    """``value`` if it is one of ``allowed``; ``TypeError`` if not a ``str``, else
    ``ValueError`` listing them."""
    if not isinstance(value, str) or value not in allowed:
        rule = "one of " + ", ".join(repr(a) for a in sorted(allowed))
        raise _fail(where, rule, value, wrong_type=not isinstance(value, str))
    return value


def check_match(where: str, value: object, pattern: re.Pattern[str]) -> str:
    """``value`` if it is a string ``pattern`` matches in full; ``TypeError`` if not a
    ``str``, else ``ValueError``."""
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        rule = f"a string matching {pattern.pattern}"
        raise _fail(where, rule, value, wrong_type=not isinstance(value, str))
    return value


def check_callable(where: str, value: object, *, optional: bool = False) -> object:
    """``value`` if it is callable (or ``None`` when ``optional``), else ``TypeError``."""
    if (value is None and optional) or callable(value):
        return value
    raise _fail(where, "callable" + (" or None" if optional else ""), value, wrong_type=True)


def check_instance(
    where: str, value: object, kind: type | tuple[type, ...], *, optional: bool = False
) -> None:
    """``TypeError`` naming the expected class unless ``value`` is an instance of ``kind``
    (or ``None`` when ``optional``)."""
    if (value is None and optional) or isinstance(value, kind):
        return
    kinds = kind if isinstance(kind, tuple) else (kind,)
    named = (("an " if k.__name__[:1] in "AEIOUaeiou" else "a ") + k.__name__ for k in kinds)
    rule = " or ".join(named) + (" or None" if optional else "")
    raise _fail(where, rule, value, wrong_type=True)


def check_items(
    where: str, value: object, kind: type[_T], *, rule: str | None = None
) -> tuple[_T, ...]:
    """``value`` as a tuple if it is an iterable (not a string, bytes or a lone ``kind``) of
    ``kind`` instances; ``TypeError`` naming the field (with ``rule``, default "a sequence of
    <kind>") or the index of the first item that is not one."""
    if isinstance(value, str | bytes | kind) or not isinstance(value, Iterable):
        raise _fail(where, rule or f"a sequence of {kind.__name__}", value, wrong_type=True)
    items = tuple(value)
    for index, item in enumerate(items):
        check_instance(f"{where}[{index}]", item, kind)
    return items
