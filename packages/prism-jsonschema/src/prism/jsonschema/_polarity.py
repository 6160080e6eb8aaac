"""Polarity: a check stricter than the reference is sound only where failing it rejects.

Prism's ``multipleOf`` and its asserted formats never *accept* a value the reference rejects,
but they reject some it accepts. In a positive position (the root, ``properties``, ``items``,
``allOf``, ``anyOf``, ``then``/``else`` ...) that only narrows; under ``not`` the same strictness
turns into acceptance, and under ``if``, ``oneOf`` or ``contains`` with ``maxContains`` into
either. So a keyword of ``INEXACT`` is refused at registration wherever it can be evaluated in
such a position: lexically below one, or in a schema a ``$ref`` from there reaches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ._keywords import SchemaWalk
from ._pointer import Path, location
from ._refgraph import Targets
from ._walk import Json, SchemaRejected

__all__ = ["INEXACT", "Inexact", "refuse_inexact_where_negated"]


@dataclass(frozen=True, slots=True)
class Inexact:
    """Why a keyword's check is not exactly the reference's, and for which values."""

    reason: str
    applies: Callable[[Json, bool], bool]
    """``(keyword value, validate_formats)``: whether this occurrence is inexact."""


INEXACT: Final[dict[str, Inexact]] = {
    "format": Inexact(
        "is checked more strictly than by JSON Schema's reference (the `jsonschema` package): "
        "the engines' email, idn-email, ipv6 and uuid checks refuse values it accepts, and no "
        "allowlisted format was shown to agree with it on every value",
        lambda _value, formats: formats,  # otherwise an annotation on every side
    ),
    "multipleOf": Inexact(
        "(a float divisor) is checked exactly on the number's decimal text, more strictly than "
        "the reference's float arithmetic (1e308 is a multiple of 0.7 there)",
        lambda value, _formats: isinstance(value, float),  # an integer one is the reference's
    ),
}
"""Keywords whose Prism check is not exactly the reference's, and why. Each is at least as
strict as the reference, so it is exact enough in positive positions only."""

_NEGATED: Final = "under not, if, oneOf or contains with maxContains"

Node = dict[str, Json]


def refuse_inexact_where_negated(walk: SchemaWalk, targets: Targets, *, formats: bool) -> None:
    """``SchemaRejected`` naming the first ``INEXACT`` keyword (document order) that can be
    evaluated in a negated or mixed position."""
    found = [
        (node, path, keyword)
        for node, path in walk.schema_nodes
        for keyword in INEXACT
        if keyword in node and INEXACT[keyword].applies(node[keyword], formats)
    ]
    if not found:
        return
    negated = _negated_nodes(walk, targets)
    for node, path, keyword in found:
        if id(node) in negated:
            value = str(node[keyword])[:80]
            raise SchemaRejected(
                f"schema keyword {keyword!r} at {location((path, keyword))}: {value!r} "
                f"{INEXACT[keyword].reason}, which is unsafe {_NEGATED} (there a stricter check "
                "accepts values the reference rejects); this schema is evaluated there "
                "(directly or through a $ref), so the schema is refused"
            )


def _negated_nodes(walk: SchemaWalk, targets: Targets) -> set[int]:
    """Ids of every schema node that can be evaluated in a negated or mixed position: below
    one in the document, or reached from such a node through a reference (a dynamic reference
    from there may reach any schema, so it makes the whole document so)."""
    children = _children(walk)
    root = walk.positions[""]
    negated: set[int] = set()
    queue: list[Node] = [node for node in walk.negated_roots if id(node) not in negated]
    while queue:
        node = queue.pop()
        if id(node) in negated:
            continue
        negated.add(id(node))
        queue.extend(children.get(id(node), ()))
        queue.extend(t for t in targets.get(id(node), ()) if isinstance(t, dict))
        if ("$dynamicRef" in node or "$recursiveRef" in node) and isinstance(root, dict):
            queue.append(root)
    return negated


def _children(walk: SchemaWalk) -> dict[int, list[Node]]:
    """Each schema node's nearest schema descendants (its subschemas), by id."""
    by_path: dict[int, Node] = {id(p): n for n, p in walk.schema_nodes if p is not None}
    root = walk.positions[""]
    children: dict[int, list[Node]] = {}
    for node, path in walk.schema_nodes:
        if path is None:
            continue
        parent = _parent(path, by_path)
        owner = root if parent is None else parent
        if isinstance(owner, dict):
            children.setdefault(id(owner), []).append(node)
    return children


def _parent(path: Path, by_path: dict[int, Node]) -> Node | None:
    """The nearest schema node above ``path`` (``None``: the root)."""
    assert path is not None
    step = path[0]
    while step is not None:
        found = by_path.get(id(step))
        if found is not None:
            return found
        step = step[0]
    return None
