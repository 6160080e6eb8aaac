"""Instance bounds, checked before any engine runs: depth, properties, string length, items.

The fast path walks exact ``dict``/``list``/scalars with no allocation (a closure over the
bounds: no attribute loads per node); anything else (a ``Mapping`` that is not a dict, a tuple,
a non-JSON value) takes the slow path, which copies the instance into plain JSON while checking
the same bounds, so engines only ever see plain JSON.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from prism.core import ToolArgumentValidationIssue

from ._pointer import join_pointer
from ._walk import is_array

if TYPE_CHECKING:
    from ._options import JsonSchemaValidatorOptions

__all__ = [
    "MAX_INSTANCE_INT_BITS",
    "InstanceBounds",
    "InstanceRejected",
    "Slow",
    "Violation",
]

MAX_INSTANCE_INT_BITS = 2048
"""Integers must lie strictly between -2**2048 and 2**2048 (about 617 digits), the bound core's
argument check applies: every engine can print and compare such an integer exactly, whatever
``sys.set_int_max_str_digits`` says (jsonschema-rs passes larger ones through unchecked)."""


class InstanceRejected(Exception):
    """An instance broke a bound; carries the error (with its JSON Pointer)."""

    def __init__(self, error: ToolArgumentValidationIssue) -> None:
        super().__init__(error.message)
        self.error = error


class Violation(Exception):
    """Raised inside the walk; the path is collected while unwinding."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.segments: list[str] = []

    def at(self, segment: str | int) -> Violation:
        """Prefix the path with ``segment``."""
        self.segments.append(str(segment))
        return self

    def error(self) -> ToolArgumentValidationIssue:
        """The error, with the JSON Pointer of the offending value."""
        path = join_pointer(reversed(self.segments))
        return ToolArgumentValidationIssue(path=path, message=self.message)


class Slow(Exception):
    """The fast path met something that is not an exact dict/list/JSON scalar."""


class InstanceBounds:
    """Checks instances against the instance bounds of ``options``."""

    def __init__(self, options: JsonSchemaValidatorOptions) -> None:
        self.max_depth = options.max_instance_depth
        self.max_properties = options.max_instance_properties
        self.max_string = options.max_string_length
        self.max_array_items = options.max_array_items
        self.walk: Callable[[Any, int], int] = _make_walker(self)
        """Fast path over an exact ``dict``/``list`` at ``depth``: raises ``Violation``/``Slow``;
        returns the characters of its strings and property names."""

    def check(self, value: object) -> object:
        """The instance the engine should see (``value`` itself when already plain JSON).

        Raises ``InstanceRejected`` naming the bound and the JSON Pointer of the value.
        """
        try:
            if type(value) is dict or type(value) is list:
                try:
                    self.walk(value, 1)
                except Slow:
                    return self._copy(value, 1)
                return value
            return self._copy(value, 1)
        except Violation as violation:
            raise InstanceRejected(violation.error()) from None
        except RecursionError:
            raise InstanceRejected(_unreadable("nesting too deep to read")) from None
        except Exception as exc:  # a hostile object (raising repr, items, len ...): refuse
            raise InstanceRejected(_unreadable(f"{type(exc).__name__} while reading it")) from None

    def too_deep(self) -> Violation:
        return Violation(f"nesting is deeper than max_instance_depth={self.max_depth}")

    def too_many(self, size: int, what: str) -> Violation:
        if what == "properties":
            return Violation(
                f"has {size} properties, more than max_instance_properties={self.max_properties}"
            )
        return Violation(f"has {size} items, more than max_array_items={self.max_array_items}")

    def long_string(self) -> Violation:
        return Violation(f"string is longer than max_string_length={self.max_string}")

    def huge_int(self, value: int) -> Violation:
        return Violation(
            f"integer of {value.bit_length()} bits is too large "
            f"(the limit is {MAX_INSTANCE_INT_BITS} bits, about 617 digits)"
        )

    def long_key(self) -> Violation:
        return Violation(f"a property name is longer than max_string_length={self.max_string}")

    def _copy(self, value: object, depth: int) -> object:
        """Slow path: copy into plain JSON while checking the same bounds."""
        if isinstance(value, Mapping):
            if depth > self.max_depth:
                raise self.too_deep()
            if len(value) > self.max_properties:
                raise self.too_many(len(value), "properties")
            out: dict[str, object] = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise Violation(
                        f"has a non-string property name ({type(key).__name__}; not JSON)"
                    )
                if len(key) > self.max_string:
                    raise self.long_key()
                try:
                    out[str.__str__(key)] = self._copy(item, depth + 1)
                except Violation as violation:
                    raise violation.at(key) from None
            return out
        if is_array(value):
            items: Any = value
            if depth > self.max_depth:
                raise self.too_deep()
            if len(items) > self.max_array_items:
                raise self.too_many(len(items), "items")
            copied: list[object] = []
            for index, item in enumerate(items):
                try:
                    copied.append(self._copy(item, depth + 1))
                except Violation as violation:
                    raise violation.at(index) from None
            return copied
        return self._scalar(value)

    def _scalar(self, value: object) -> object:
        if isinstance(value, str):
            if len(value) > self.max_string:
                raise self.long_string()
            return str.__str__(value)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            if value.bit_length() > MAX_INSTANCE_INT_BITS:
                raise self.huge_int(value)
            return int.__int__(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise Violation(f"number {value} is not finite (not JSON)")
            return float.__float__(value)
        raise Violation(f"value of type {type(value).__name__} is not JSON")


def _make_walker(bounds: InstanceBounds) -> Callable[[Any, int], int]:
    """The fast bounds walk; it also returns the characters of every string and property name
    below ``value`` (the scan work's count, see ``_scan``), so no second walk counts them."""
    max_depth, max_properties = bounds.max_depth, bounds.max_properties
    longest, max_items, max_bits = bounds.max_string, bounds.max_array_items, MAX_INSTANCE_INT_BITS

    def walk(value: Any, depth: int) -> int:
        if type(value) is not dict:
            return walk_items(value, depth)
        if depth > max_depth:
            raise bounds.too_deep()
        if len(value) > max_properties:
            raise bounds.too_many(len(value), "properties")
        chars = 0
        for key, item in value.items():
            if type(key) is not str:
                raise Slow
            size = len(key)
            if size > longest:
                raise bounds.long_key()
            chars += size
            kind = type(item)
            if kind is str:
                size = len(item)
                if size > longest:
                    raise bounds.long_string().at(key)
                chars += size
            elif kind is int:
                if item.bit_length() > max_bits:
                    raise bounds.huge_int(item).at(key)
            elif kind is bool or item is None:
                pass
            elif kind is dict or kind is list:
                try:
                    chars += walk(item, depth + 1) if kind is dict else walk_items(item, depth + 1)
                except Violation as violation:
                    raise violation.at(key) from None
            elif kind is float:
                if item - item != 0.0:
                    raise Violation(f"number {item} is not finite (not JSON)").at(key)
            else:
                raise Slow
        return chars

    def walk_items(value: list[Any], depth: int) -> int:
        """``walk`` of a list (the dict case stays in ``walk``: one call per container)."""
        if depth > max_depth:
            raise bounds.too_deep()
        if len(value) > max_items:
            raise bounds.too_many(len(value), "items")
        chars = 0
        for item in value:  # no enumerate on the hot path: the index is found on error only
            kind = type(item)
            try:
                if kind is str:
                    size = len(item)
                    if size > longest:
                        raise bounds.long_string()
                    chars += size
                elif item is None or kind is bool:
                    pass
                elif kind is dict:
                    chars += walk(item, depth + 1)
                elif kind is list:
                    chars += walk_items(item, depth + 1)
                elif kind is int:
                    if item.bit_length() > max_bits:
                        raise bounds.huge_int(item)
                elif kind is float:
                    if item - item != 0.0:
                        raise Violation(f"number {item} is not finite (not JSON)")
                else:
                    raise Slow
            except Violation as violation:
                raise violation.at(_index_of(value, item)) from None
        return chars

    return walk


def _index_of(items: list[object], item: object) -> int:
    """Index of the first occurrence of this very object (where the walk met it first)."""
    for index, candidate in enumerate(items):
        if candidate is item:
            return index
    return -1  # pragma: no cover - the item came from this list


def _unreadable(why: str) -> ToolArgumentValidationIssue:
    return ToolArgumentValidationIssue(path=None, message=f"value cannot be read as JSON ({why})")
