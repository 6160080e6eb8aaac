"""Instance bounds, checked before any engine runs: depth, properties, string length, items.

The fast path walks exact ``dict``/``list``/scalars with no allocation (a closure over the
bounds: no attribute loads per node); anything else (a ``Mapping`` that is not a dict, a tuple,
a non-JSON value) takes the slow path, which copies the instance into plain JSON while checking
the same bounds, so engines only ever see plain JSON.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from prism.core import ToolArgumentValidationIssue

from ._pointer import join_pointer
from ._walk import is_array

if TYPE_CHECKING:
    from ._options import JsonSchemaValidatorOptions

__all__ = [
    "MAX_INSTANCE_INT_BITS",
    "SCALARS",
    "InstanceBounds",
    "InstanceRejected",
    "Slow",
    "Violation",
    "count_nodes",
    "nodes_and_weight",
    "rs_weight",
    "weigh",
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
        if depth > max_depth:
            raise bounds.too_deep()
        chars = 0
        if type(value) is dict:
            if len(value) > max_properties:
                raise bounds.too_many(len(value), "properties")
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
                        chars += walk(item, depth + 1)
                    except Violation as violation:
                        raise violation.at(key) from None
                elif kind is float:
                    if item - item != 0.0:
                        raise Violation(f"number {item} is not finite (not JSON)").at(key)
                else:
                    raise Slow
            return chars
        if len(value) > max_items:
            raise bounds.too_many(len(value), "items")
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
                elif kind is dict or kind is list:
                    chars += walk(item, depth + 1)
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


SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""Exact JSON scalar types: a dict whose values are all of these is flat."""


def count_nodes(value: object, limit: int) -> int:
    """JSON nodes in ``value`` (a shared sub-object counts each time it is reached); stops
    counting once past ``limit``. What is not a container counts as one node."""
    if type(value) is dict:  # the common case, a flat arguments object: no stack at all
        count = len(value) + 1
        if count > limit:
            return count
        if SCALARS.issuperset(map(type, value.values())):
            return count
    count = 1
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            items: Any = node.values()  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            items = node
        elif isinstance(node, Mapping):
            items = node.values()
        else:
            continue
        count += len(items)
        if count > limit:
            return count
        for item in items:
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                continue
            if kind is dict or kind is list or kind is tuple or isinstance(item, Mapping):
                push(item)
    return count


CHARS_PER_UNIT: Final = 64
"""String characters (a property name or a string value) or integer bits that weigh one
node in ``weigh``: patterns scan strings and error messages quote them."""


def weigh(value: object, limit: int) -> int:
    """``count_nodes`` plus one per ``CHARS_PER_UNIT`` characters of every string and key and
    bits of every integer: what matching, comparing and quoting cost; stops past ``limit``."""
    if type(value) is dict:
        weight = _flat_weight(value, limit)
        if weight >= 0:
            return weight
    return nodes_and_weight(value, limit, limit)[1]


def nodes_and_weight(value: object, node_limit: int, weight_limit: int) -> tuple[int, int]:
    """``(count_nodes, weigh)`` of ``value`` in one walk; stops once either is past its limit."""
    if type(value) is dict:
        if len(value) >= node_limit:
            return len(value) + 1, len(value) + 1
        weight = _flat_weight(value, weight_limit)
        if weight >= 0:
            return len(value) + 1, weight
    kind = type(value)
    if kind is str:
        return 1, 1 + len(value) // CHARS_PER_UNIT  # type: ignore[arg-type]
    if kind is int:
        return 1, 1 + int.bit_length(value) // CHARS_PER_UNIT  # type: ignore[arg-type]
    nodes, text = 1, 0
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is list or kind is tuple:
            items: Any = node
            nodes += len(node)  # type: ignore[arg-type]
        elif kind is dict or isinstance(node, Mapping):
            items = node.values()  # type: ignore[attr-defined]
            nodes += len(node)  # type: ignore[arg-type]
            text += _key_chars(node) // CHARS_PER_UNIT
        else:
            continue
        if nodes > node_limit or nodes + text > weight_limit:
            return nodes, nodes + text
        for item in items:  # scalars inline, like ``count_nodes``: only containers are pushed
            kind = type(item)
            if kind is str:
                text += len(item) // CHARS_PER_UNIT
            elif kind is int:
                text += item.bit_length() // CHARS_PER_UNIT
            elif kind is float or kind is bool or item is None:
                continue
            elif kind is dict or kind is list or kind is tuple or isinstance(item, Mapping):
                push(item)
    return nodes, nodes + text


_SMALL: Final = 16
"""Members of a flat object weighed in one Python loop (faster than three C passes)."""


def _flat_weight(value: dict[Any, Any], limit: int) -> int:
    """``weigh`` of a dict whose values are all JSON scalars, or -1 when one is not (the
    general walk then weighs it). Integer sizes are not read: a flat object's are bounded."""
    if not value:  # the usual arguments of a tool without parameters
        return 1
    if len(value) >= limit:  # too many members already: no need to read the text
        return len(value) + 1
    if len(value) <= _SMALL:
        chars = 0
        try:
            for key, item in value.items():
                kind = type(item)
                if kind is str:
                    chars += len(item)
                elif (
                    kind is not int and kind is not float and kind is not bool and item is not None
                ):
                    return -1
                chars += len(key)
        except TypeError:  # a key without a length: the general walk reads it
            return -1
        return len(value) + 1 + chars // CHARS_PER_UNIT
    if not SCALARS.issuperset(map(type, value.values())):
        return -1
    chars = _key_chars(value) + sum([len(item) for item in value.values() if type(item) is str])
    return len(value) + 1 + chars // CHARS_PER_UNIT


def _key_chars(node: Any) -> int:
    """Characters of a mapping's keys (``str`` keys; anything else counts nothing)."""
    try:
        return sum(map(len, node))
    except Exception:  # a key that is not a string, or a hostile one: only str keys count
        return sum([len(key) for key in node if type(key) is str])


def rs_weight(value: object, limit: int) -> int:
    """``count_nodes`` plus ``(bits // 64) ** 2`` for every integer past 64 bits: what
    jsonschema-rs spends on it (it converts each through its decimal text, about 34 µs for
    2,048 bits, as much as a thousand plain nodes); stops past ``limit``."""
    weight = 1
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack and weight <= limit:
        node = pop()
        kind = type(node)
        if kind is int:
            bits = node.bit_length()  # type: ignore[attr-defined]
            weight += (bits >> 6) ** 2 if bits > 64 else 0
        elif kind is dict or isinstance(node, Mapping):
            weight += len(node)  # type: ignore[arg-type]
            for item in node.values():  # type: ignore[attr-defined]
                push(item)
        elif kind is list or kind is tuple:
            weight += len(node)  # type: ignore[arg-type]
            for item in node:  # type: ignore[attr-defined]
                push(item)
    return weight
