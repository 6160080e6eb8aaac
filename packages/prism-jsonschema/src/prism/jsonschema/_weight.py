"""How much work a value is, counted before any engine runs: its JSON nodes (``count_nodes``),
nodes plus the text matching and quoting read (``weigh``, ``nodes_and_weight``), and what
jsonschema-rs spends on big integers (``rs_weight``). Each walk stops once past its limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["SCALARS", "count_nodes", "nodes_and_weight", "rs_weight", "weigh"]


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
