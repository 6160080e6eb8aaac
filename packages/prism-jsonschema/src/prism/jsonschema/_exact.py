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
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from ._regex import PatternInputRefused, Re2Pattern, refuse_unassigned_names

__all__ = ["NAME_GUARD", "OVERFLOW", "is_multiple", "rs_keywords"]

NAME_GUARD: Final = "prismUnicodeNames"
"""A root keyword of Prism's own (a schema's unknown keywords never reach an engine): every
property name in the value is checked for code points the oldest Unicode tables lack."""

OVERFLOW = threading.local()
"""``OVERFLOW.error``: set by a jsonschema-rs ``pattern`` that met a string it cannot match
exactly (over the input bound, or see ``UnassignedCodePoint``). Its exception only means "does
not match" to the engine (so ``not`` would accept): the validator clears this before each run
and fails the value when it is set after."""


def is_multiple(value: object, divisor: int | float) -> bool:
    """Whether the JSON number ``value`` is an integer multiple of ``divisor`` (> 0)."""
    if type(value) is int and type(divisor) is int:
        return value % divisor == 0
    if not isinstance(value, int | float) or isinstance(value, bool):
        return True  # not a number: multipleOf does not apply
    if not isinstance(divisor, float):  # exactly the reference: `instance % dB`
        try:
            return value % divisor == 0
        except OverflowError:  # a divisor past any float: the reference raises
            return False
    try:  # float division first: cheap, and it must accept too
        quotient = value / divisor
    except OverflowError:
        return False
    if quotient - quotient != 0.0 or int(quotient) != quotient:
        return False
    return (_decimal(value) / _decimal(divisor)).denominator == 1


def _decimal(number: int | float) -> Fraction:
    return Fraction(Decimal(repr(number))) if isinstance(number, float) else Fraction(number)


class _MultipleOf:
    def __init__(self, parent: Any, value: Any, path: Any) -> None:
        self.divisor = value

    def validate(self, instance: Any) -> None:
        if not is_multiple(instance, self.divisor):
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
