"""References, resolved once on the checked copy: each must name a schema position.

A ``$ref`` that points into data (``const``, ``enum`` ...), into a dropped keyword or nowhere is
refused here, so no engine is ever asked to read data as a schema or to guess.
"""

from __future__ import annotations

from urllib.parse import unquote

from ._keywords import SchemaWalk
from ._pointer import location
from ._walk import Json, SchemaRejected

__all__ = ["Targets", "resolve_references"]


Targets = dict[int, list[dict[str, Json] | bool]]


def resolve_references(walk: SchemaWalk) -> Targets:
    """``{id(node holding refs): [targets]}``; ``SchemaRejected`` when a reference does not
    name a schema position (JSON Pointer from the root, or an anchor)."""
    targets: Targets = {}
    owners = {id(node): node for node, _ in walk.schema_nodes}
    by_path = {id(path): node for node, path in walk.schema_nodes if path is not None}
    for ref, path in walk.state.refs:
        assert path is not None
        owner_path, keyword = path
        owner = walk.positions[""] if owner_path is None else by_path.get(id(owner_path))
        target = _target(walk, ref)
        if target is None:
            raise SchemaRejected(
                f"{keyword} {ref[:120]!r} at {location(path)} does not name a schema in this "
                "document (references must point at a schema position, never into data)"
            )
        if isinstance(owner, dict) and id(owner) in owners:
            targets.setdefault(id(owner), []).append(target)
    return targets


def _target(walk: SchemaWalk, ref: str) -> dict[str, Json] | bool | None:
    fragment = unquote(ref[1:])
    if fragment == "" or fragment.startswith("/"):
        return walk.positions.get(fragment)
    if walk.draft in (2019, 2020):
        return walk.anchors.get(fragment)
    return None
