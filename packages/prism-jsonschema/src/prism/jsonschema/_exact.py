"""Keywords every engine evaluates with the same Python code, exactly and within bounds.

``multipleOf`` with an integer divisor is the ``jsonschema`` package's own arithmetic (``%``:
exact on integers, the float's binary value otherwise), so it is exact wherever it stands. With
a float divisor it is decided on the numbers' decimal text (what the JSON says), never through a
rounded float or 28-digit ``Decimal`` quotient, and never accepts what float division rejects
(the reference's answer): both engines' own versions accepted non-multiples. That is stricter
than the reference, so it is refused where strictness would widen (see ``_polarity``). On
jsonschema-rs ``pattern`` runs on the same RE2 patterns as fastjsonschema, with the same bound
on the length of the string it reads.
"""

from __future__ import annotations

import threading
from typing import Any, Final, cast

from ._regex import PatternInputRefused, Re2Pattern, refuse_unassigned_names

__all__ = [
    "NAME_GUARD",
    "OVERFLOW",
    "ExactChecksExceeded",
    "is_multiple",
    "reset_exact_checks",
    "rs_keywords",
    "unique_items",
]

NAME_GUARD: Final = "prismUnicodeNames"
"""A root keyword of Prism's own (a schema's unknown keywords never reach an engine): every
property name in the value is checked for code points the oldest Unicode tables lack."""

OVERFLOW = threading.local()
"""``OVERFLOW.error``: set by a jsonschema-rs ``pattern`` that met a string it cannot match
exactly (over the input bound, or see ``UnassignedCodePoint``), or a ``multipleOf`` past the
exact-check budget. Its exception only means "does not
match" to the engine (so ``not`` would accept): the validator clears this before each run and
fails the value when it is set after."""


EXACT_CHECKS: Final = 16_384
"""Exact ``multipleOf`` checks (those float division cannot settle) one validation may run:
each costs up to ~2 µs of CPU (the numbers' decimal text, small-integer arithmetic), so all
of them stay within ~35 ms. A repeat of the previous check's numbers is free."""


class ExactChecksExceeded(Exception):
    """A validation needed more than ``EXACT_CHECKS`` exact ``multipleOf`` checks."""

    def __init__(self) -> None:
        super().__init__(
            f"value needs more than {EXACT_CHECKS:,} exact multipleOf checks (distinct numbers "
            "that float division cannot settle): too costly to validate"
        )


class _Spent(threading.local):
    def __init__(self) -> None:
        self.left = EXACT_CHECKS
        self.last: tuple[object, object, bool] | None = None
        self.divisor: tuple[int | float, int, int] = (1, 1, 0)


SPENT = _Spent()
"""This thread's exact-check budget; ``reset_exact_checks`` refills it per validation."""


def reset_exact_checks() -> None:
    """Refill this thread's budget: called before each validation of a ``multipleOf`` schema."""
    SPENT.left = EXACT_CHECKS
    SPENT.last = None


def is_multiple(value: object, divisor: int | float) -> bool:
    """Whether the JSON number ``value`` is an integer multiple of ``divisor`` (> 0).

    Raises ``ExactChecksExceeded`` past this validation's budget of exact checks.
    """
    kind = type(value)
    if kind is int and type(divisor) is int:
        return cast(int, value) % divisor == 0
    if (  # exact types first: this runs per number
        kind is not float
        and kind is not int
        and (kind is bool or not isinstance(value, int | float))
    ):
        return True  # not a number: multipleOf does not apply
    number = cast("int | float", value)  # narrowed by the exact type checks above
    if type(divisor) is not float:  # exactly the reference: ``instance % dB``
        try:
            return number % divisor == 0  # a float value: its binary value, too
        except OverflowError:  # a divisor past any float: the reference raises
            return False
    try:  # float division first: cheap, and it must accept too
        quotient = number / divisor
    except OverflowError:
        return False
    if not quotient.is_integer():  # also false for an infinity or NaN; no big int built
        return False
    last = SPENT.last
    if (
        last is not None
        and last[0] == number
        and last[1] == divisor
        and type(last[0]) is type(number)
        and type(last[1]) is type(divisor)
    ):
        return last[2]
    SPENT.left -= 1
    if SPENT.left < 0:
        raise ExactChecksExceeded
    verdict = _decimal_multiple(number, divisor)
    SPENT.last = (number, divisor, verdict)
    return verdict


def _decimal_multiple(value: int | float, divisor: int | float) -> bool:
    """Exact on the decimal text: ``m_v * 10**e_v / (m_d * 10**e_d)`` is an integer. A float's
    exponent is within -340..308 and an integer's is 0, so no power of ten past 10**650 (2,160
    bits) is built: a few big-integer operations, whatever the numbers."""
    mv, ev = _digits(value)
    known = SPENT.divisor  # one schema's divisor, mostly: decomposed once
    if known[0] == divisor and type(known[0]) is type(divisor):
        md, ed = known[1], known[2]
    else:
        md, ed = _digits(divisor)
        SPENT.divisor = (divisor, md, ed)
    shift = ev - ed
    scale: int = 10 ** abs(shift)
    if shift >= 0:
        return mv * scale % md == 0
    return mv % (md * scale) == 0


def _digits(number: int | float) -> tuple[int, int]:
    """``(m, e)`` with ``number == m * 10**e`` as its JSON text says (``repr`` for a float)."""
    if type(number) is not float:
        return int(number), 0
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    return int(whole + fraction), (int(exponent) if exponent else 0) - len(fraction)


def unique_items(items: list[Any]) -> bool:
    """Whether no two of ``items`` are equal as JSON (``1 == 1.0``, ``true != 1``, key order
    irrelevant). Each item's key holds only strings, whose hashes are keyed per process: no
    value can make keys collide (an ``int`` hashes as itself modulo 2**61 - 1, so the ``set``
    of the items themselves was quadratic on chosen integers)."""
    seen = {_unique_key(item) for item in items}
    return len(seen) == len(items)


def _unique_key(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return ("s", value)
    if kind is bool:
        return "t" if value else "f"
    if kind is int:
        return hex(value)  # linear in the bits (a power-of-two base), canonical per value
    if kind is float:
        return hex(int(value)) if value.is_integer() else float.hex(value)
    if value is None:
        return "n"
    if kind is list or kind is tuple:
        return ("[", *map(_unique_key, value))
    if kind is dict:
        return ("{", frozenset([(key, _unique_key(item)) for key, item in value.items()]))
    raise TypeError(f"not JSON: {kind.__name__}")  # the bounds check copies values to JSON


class _MultipleOf:
    def __init__(self, parent: Any, value: Any, path: Any) -> None:
        self.divisor = value

    def validate(self, instance: Any) -> None:
        try:
            multiple = is_multiple(instance, self.divisor)
        except ExactChecksExceeded as exc:  # an exception only means "invalid" to the engine
            OVERFLOW.error = exc
            raise
        if not multiple:
            raise ValueError(f"{_clip(instance)} is not a multiple of {self.divisor}")


def rs_keywords(regexes: dict[str, Re2Pattern]) -> dict[str, type]:
    """Custom keywords for jsonschema-rs: exact ``multipleOf``, RE2 ``pattern``."""

    class Pattern:
        def __init__(self, parent: Any, value: Any, path: Any) -> None:
            self.search = regexes[value].search
            self.pattern = value

        def validate(self, instance: Any) -> None:
            if type(instance) is not str:
                return
            try:
                found = self.search(instance)
            except PatternInputRefused as exc:
                OVERFLOW.error = exc
                raise
            if not found:
                raise ValueError(f"{_clip(instance)} does not match {_clip(self.pattern)}")

    return {"multipleOf": _MultipleOf, "pattern": Pattern, NAME_GUARD: _NameGuard}


class _NameGuard:
    def __init__(self, parent: Any, value: Any, path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        try:
            refuse_unassigned_names(instance)
        except PatternInputRefused as exc:
            OVERFLOW.error = exc
            raise


def _clip(value: object) -> str:
    if type(value) is int and value.bit_length() > 256:  # printing it costs quadratic time
        return f"an integer of {value.bit_length()} bits"
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 80 else text[:77] + "..."
