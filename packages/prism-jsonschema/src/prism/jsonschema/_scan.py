"""Scan work: what matching patterns and formats against a value's strings costs, bounded by
construction.

Every pattern gets a **weight** when the schema is registered: 1 plus RE2's program size
(counted repetitions expanded: ``(a|b){1,10}`` nested three deep is 4,224 instructions) over
``SIZE_PER_WEIGHT``. A string scanned by a pattern costs weight x its length: matching costs
about 40 ns a character while RE2 stays in its DFA (mostly the call and the UTF-8 copy), but
when a pattern's states overflow the DFA, RE2 simulates the program, 6-13 ns per instruction
per character. An asserted format weighs ``FORMAT_WEIGHT``. A pattern heavier than
``MAX_PATTERN_WEIGHT`` is refused.

The schema's **scan weight** is the most pattern and format weight one data node can meet,
every ``$ref`` inlined (``expanded_weight``); a value's scan work is scan weight x the
characters of all its strings and property names, over ``CHARS_PER_WORK`` (an upper bound:
each character is scanned by at most the scan weight). It adds to the node work (expanded
size x nodes) within ``max_validation_work``.

jsonschema-rs runs its instance bounds in Rust, so counting characters in Python would be a
second walk. Instead it counts nodes only (``plain_nodes``, what it counted before scan work
existed) and proves the characters in Rust: every string and property name of a value of
``nodes`` nodes at most ``L`` characters long makes at most ``2 x nodes x L`` characters, so a
bounds schema whose ``maxLength`` is a ``SHORT_TIERS`` length within ``longest_within`` bounds
the scan work; a value it refuses is counted exactly (``text_of``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._regex import Re2Pattern
from ._walk import Json, SchemaRejected
from ._weight import SCALARS

__all__ = [
    "CHARS_PER_WORK",
    "FORMAT_WEIGHT",
    "MAX_PATTERN_WEIGHT",
    "SHORT_TIERS",
    "Impure",
    "check_pattern_weights",
    "longest_within",
    "own_weights",
    "pattern_weight",
    "plain_nodes",
    "text_of",
]

SIZE_PER_WEIGHT: Final = 4
"""RE2 program instructions per unit of pattern weight (about 50 ns a character off the DFA)."""
MAX_PATTERN_WEIGHT: Final = 4_096
"""Heaviest pattern accepted (a program of about 16,000 instructions): one character scanned by it
is 512 units of work, so ``max_validation_work`` still admits a string of 195 characters."""
FORMAT_WEIGHT: Final = 1
"""Weight of an asserted ``format`` (every built-in format check is linear: measured at most
40 ns a character on either engine, ``iri`` on fastjsonschema)."""
CHARS_PER_WORK: Final = 8
"""Weight x characters that make one unit of ``max_validation_work`` (about 0.4 µs: a unit
of node work, one schema node checked against one data node, is about 0.3 µs)."""


class Impure(Exception):
    """The value holds something other than exact JSON types: count its canonical copy."""


def pattern_weight(pattern: Re2Pattern) -> int:
    """What scanning one character with ``pattern`` costs, in weight units (at least 1)."""
    return 1 + pattern.size // SIZE_PER_WEIGHT


def check_pattern_weights(regexes: Mapping[str, Re2Pattern]) -> None:
    """Refuse a pattern heavier than ``MAX_PATTERN_WEIGHT`` (``SchemaRejected``)."""
    for text, pattern in regexes.items():
        weight = pattern_weight(pattern)
        if weight > MAX_PATTERN_WEIGHT:
            raise SchemaRejected(
                f"pattern {text[:80]!r} weighs {weight:,} per character scanned (RE2 program "
                f"of {pattern.size:,} instructions, counted repetitions expanded), more than "
                f"the cap of {MAX_PATTERN_WEIGHT:,}"
            )


def own_weights(
    nodes: list[dict[str, Json]], regexes: Mapping[str, Re2Pattern], formats: bool
) -> list[int]:
    """Per schema node: the weight of its ``pattern``, its ``patternProperties`` keys and, when
    formats are asserted, its ``format``."""
    out: list[int] = []
    for node in nodes:
        weight = 0
        pattern = node.get("pattern")
        if isinstance(pattern, str) and pattern in regexes:
            weight += pattern_weight(regexes[pattern])
        keys = node.get("patternProperties")
        if isinstance(keys, dict):
            weight += sum(pattern_weight(regexes[key]) for key in keys if key in regexes)
        if formats and isinstance(node.get("format"), str):
            weight += FORMAT_WEIGHT
        out.append(weight)
    return out


def text_of(
    value: object, node_limit: int, char_limit: int, names: bool = False
) -> tuple[int, int, int]:
    """``(nodes, characters, longest property name)`` of a plain JSON value (shared sub-objects
    count each time they are reached; the longest name only with ``names``); stops once past
    either limit. Raises ``Impure`` for anything but exact JSON types, whose lengths could lie.

    One walk, ``count_nodes``'s shape plus one ``len`` per string: a dict's names are measured
    by ``"".join`` in C, which refuses a non-string name and reads a ``str`` subclass's own
    characters (an overridden ``__len__`` cannot lie to it); no separate type pass per dict."""
    nodes, chars, longest = 1, 0, 0
    stack: list[Any] = [value]
    pop, push, join = stack.pop, stack.append, "".join
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            nodes += len(node)
            if nodes > node_limit:
                break
            try:
                chars += len(join(node))
            except TypeError:  # a name that is not a string
                raise Impure from None
            if names and node:
                if not STR_KEYS.issuperset(map(type, node)):  # a subclass's len could lie
                    raise Impure
                longest = max(longest, max(map(len, node)))
            items = node.values()
        elif kind is list:
            nodes += len(node)
            items = node
        elif kind is str:
            chars += len(node)
            continue
        elif kind in SCALARS:
            continue
        else:
            raise Impure
        if nodes > node_limit or chars > char_limit:
            break
        for item in items:
            kind = type(item)
            if kind is str:
                chars += len(item)
            elif kind is int or kind is float or kind is bool or item is None:
                continue
            elif kind is dict or kind is list:
                push(item)
            else:
                raise Impure
    return nodes, chars, longest


STR_KEYS: Final = frozenset({str})

SHORT_TIERS: Final = (16, 64, 256, 1_024, 4_096, 16_384, 65_536)
"""String lengths of the short-strings bounds schemas jsonschema-rs proves scan work with."""


def longest_within(budget: int, expanded: int, scan: int, nodes: int) -> int:
    """The longest string or property name such that any value of ``nodes`` nodes (``>= 1``)
    whose strings and names are all that short keeps ``expanded x nodes`` plus its scan work
    within ``budget``; negative when the nodes alone are over it.

    A value of ``nodes`` nodes holds at most ``nodes`` strings and ``nodes - 1`` names, so at
    most ``2 x nodes x L`` characters of length ``L`` at most; ``scan x`` that ``//
    CHARS_PER_WORK`` is within what the node work leaves of the budget."""
    room = budget - expanded * nodes
    if room < 0:
        return -1
    return room * CHARS_PER_WORK // (2 * max(scan, 1) * nodes)


def plain_nodes(value: object, limit: int) -> int:
    """``count_nodes`` of a plain JSON value (exact types only, so Rust reads the same
    structure Python counted; shared sub-objects count each time they are reached); stops
    once past ``limit``. Raises ``Impure`` for anything else."""
    nodes = 1
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            items = node.values()
        elif kind is list:
            items = node
        elif kind in SCALARS:
            continue
        else:
            raise Impure
        nodes += len(items)
        if nodes > limit:
            break
        for item in items:
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                push(item)
            else:
                raise Impure
    return nodes
