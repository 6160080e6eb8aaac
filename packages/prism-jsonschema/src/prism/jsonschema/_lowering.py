"""Rewrite a checked schema copy into what each engine evaluates the same way.

Both engines: content keywords are annotations only, ``$schema`` is canonical and root-only.
fastjsonschema implements draft-07 semantics, so 2019-09/2020-12 keywords are lowered to their
draft-07 equivalents (``$ref`` siblings, ``prefixItems``, ``dependentRequired`` ...); what cannot
be expressed is refused by name rather than silently ignored (ignoring would accept more).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final
from urllib.parse import unquote

from ._drafts import CANONICAL_URI, Draft
from ._exact import NAME_GUARD
from ._pointer import Path, location, pointer
from ._regex import PatternInputRefused, Re2Pattern
from ._walk import Json, SchemaRejected

__all__ = ["guard_names_for_rs", "lower_for_fastjsonschema", "prepare_common"]

SchemaNodes = list[tuple[dict[str, Json], Path]]

_CONTENT: Final = ("contentMediaType", "contentEncoding", "contentSchema")
_IN_PLACE_APPLICATORS: Final = frozenset(
    {"allOf", "anyOf", "oneOf", "if", "then", "else", "not", "$ref", "$dynamicRef",
     "$recursiveRef", "dependentSchemas", "dependencies"}
)  # fmt: skip
_NOT_ASSERTIONS: Final = frozenset(
    {"$ref", "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$comment",
     "$defs", "definitions", "$vocabulary", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly"}
)  # fmt: skip
_UNSUPPORTED: Final = ("minContains", "maxContains", "unevaluatedProperties", "unevaluatedItems")


def prepare_common(document: dict[str, Json], nodes: SchemaNodes, draft: Draft) -> None:
    """Engine-neutral normalization, in place."""
    for node, path in nodes:
        for keyword in _CONTENT:
            node.pop(keyword, None)
        if path is not None:
            node.pop("$schema", None)
    document["$schema"] = CANONICAL_URI[draft]


def guard_names_for_rs(
    document: dict[str, Json], nodes: SchemaNodes, regexes: Mapping[str, Re2Pattern]
) -> None:
    """jsonschema-rs matches ``patternProperties`` natively, with Rust's Unicode tables: where a
    key reads Unicode properties, the root gets ``NAME_GUARD``, which fails the whole value when
    any property name in it holds a code point the oldest tables do not assign (at the root:
    a valid value has run every root keyword, whatever ``not`` or ``anyOf`` skipped below)."""
    for node, _path in nodes:
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and any(regexes[k].tables for k in patterns):
            document[NAME_GUARD] = True
            return


def lower_for_fastjsonschema(
    nodes: SchemaNodes,
    draft: Draft,
    refs: Iterable[tuple[str, Path]],
    regexes: Mapping[str, Re2Pattern],
) -> dict[str, str]:
    """Lower 2019-09/2020-12 keywords to draft-07 ones fastjsonschema implements, in place.

    Returns ``{placeholder: pattern}``: ``patternProperties`` keys are renamed to plain
    placeholders, because upstream compiles them with ``re`` (its slots get RE2 patterns).
    """
    placeholders: dict[str, str] = {}
    for node, path in nodes:
        _avoid_required_quirk(node, regexes)
        _refuse_what_cannot_resolve_exactly(node, path, draft)
        _rename_pattern_keys(node, regexes, placeholders)
    if draft not in (2019, 2020):
        return placeholders
    targets = [unquote(ref[1:]) for ref, _ in refs]
    dynamic = any("$dynamicAnchor" in n or n.get("$recursiveAnchor") is True for n, _ in nodes)
    for node, path in nodes:
        _lower_dynamic_refs(node, path, dynamic)
        _lower_unevaluated(node, draft)
        if draft == 2020 and "prefixItems" in node:
            _lower_prefix_items(node, path, targets)
        _lower_dependents(node)
        for keyword in _UNSUPPORTED:
            if keyword in node:
                raise SchemaRejected(
                    f"schema keyword {keyword!r} at {location((path, keyword))} is not "
                    "supported by the fastjsonschema engine; use engine='jsonschema-rs'"
                )
        _lower_ref_siblings(node)
    return placeholders


def _rename_pattern_keys(
    node: dict[str, Json], regexes: Mapping[str, Re2Pattern], placeholders: dict[str, str]
) -> None:
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict):
        return
    renamed: dict[str, Json] = {}
    for key, value in patterns.items():
        name = f"prism_pattern_{len(placeholders)}"
        while name in regexes:
            name += "_"
        placeholders[name] = key
        renamed[name] = value
    node["patternProperties"] = renamed


def _avoid_required_quirk(node: dict[str, Json], regexes: Mapping[str, Re2Pattern]) -> None:
    # fastjsonschema refuses to compile `required` names that `additionalProperties: false`
    # forbids (a valid, merely unsatisfiable schema) and mistakes `{}` for false there.
    additional = node.get("additionalProperties")
    if additional == {}:
        node["additionalProperties"] = True
    elif additional is False and isinstance(node.get("required"), list):
        properties = node.get("properties")
        patterns = node.get("patternProperties")
        known = set(properties) if isinstance(properties, dict) else set()
        keys = list(patterns) if isinstance(patterns, dict) else []
        for name in node["required"]:  # type: ignore[union-attr]
            if name not in known and not _matches_any(str(name), keys, regexes):
                node["additionalProperties"] = {"not": {}}  # same meaning, other code path
                return


def _matches_any(name: str, keys: list[str], regexes: Mapping[str, Re2Pattern]) -> bool:
    try:
        return any(regexes[key].search(name) for key in keys)
    except PatternInputRefused:  # undecided: the rewrite above keeps the meaning anyway
        return False


def _refuse_what_cannot_resolve_exactly(node: dict[str, Json], path: Path, draft: Draft) -> None:
    # fastjsonschema resolves every reference by JSON Pointer from the root (embedded ids are
    # refused for every engine by the walk): a reference by anchor name would be resolved
    # elsewhere than the specification says, silently widening the schema. Refuse it.
    for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
        ref = node.get(keyword)
        if isinstance(ref, str) and ref != "#" and not ref.startswith("#/"):
            raise SchemaRejected(
                f"schema keyword {keyword!r} at {location((path, keyword))} refers by anchor "
                f"({ref[:80]!r}), which the fastjsonschema engine cannot resolve exactly; "
                "use engine='jsonschema-rs'"
            )


def _lower_dynamic_refs(node: dict[str, Json], path: Path, dynamic: bool) -> None:
    # Without any dynamic anchor in the document, both dynamic refs behave exactly like $ref.
    for keyword in ("$dynamicRef", "$recursiveRef"):
        if keyword in node:
            if dynamic or "$ref" in node:
                raise SchemaRejected(
                    f"schema keyword {keyword!r} at {location((path, keyword))} is not "
                    "supported by the fastjsonschema engine; use engine='jsonschema-rs'"
                )
            node["$ref"] = node.pop(keyword)


def _lower_unevaluated(node: dict[str, Json], draft: Draft) -> None:
    # Only the simple case: no in-place applicator, so "unevaluated" means "not matched here".
    if _IN_PLACE_APPLICATORS.intersection(node):
        for keyword in ("unevaluatedProperties", "unevaluatedItems"):
            if node.get(keyword) is True:
                del node[keyword]
        return
    if "unevaluatedProperties" in node:
        value = node.pop("unevaluatedProperties")
        node.setdefault("additionalProperties", value)
    if "unevaluatedItems" in node and "contains" not in node:
        value = node.pop("unevaluatedItems")
        items = node.get("items")
        if items is None:
            node["items"] = value
        elif isinstance(items, list) and draft == 2019:
            node.setdefault("additionalItems", value)


def _lower_prefix_items(node: dict[str, Json], path: Path, targets: list[str]) -> None:
    moved = pointer((path, "items"))
    if "items" in node and any(t == moved or t.startswith(moved + "/") for t in targets):
        raise SchemaRejected(
            f"a $ref points into {location((path, 'items'))} next to prefixItems, which the "
            "fastjsonschema engine cannot express; use engine='jsonschema-rs'"
        )
    prefix = node["prefixItems"]
    if "items" in node:
        node["additionalItems"] = node.pop("items")
    node["items"] = list(prefix) if isinstance(prefix, list) else prefix


def _lower_dependents(node: dict[str, Json]) -> None:
    extra: list[Json] = []
    for keyword in ("dependentRequired", "dependentSchemas"):
        value = node.get(keyword)
        if isinstance(value, dict) and value:
            extra.append({"dependencies": value})
    if extra:
        _append_all_of(node, extra)


def _lower_ref_siblings(node: dict[str, Json]) -> None:
    # Since 2019-09 keywords next to $ref apply too; draft-07 engines ignore them.
    if "$ref" in node and any(key not in _NOT_ASSERTIONS for key in node):
        _append_all_of(node, [{"$ref": node.pop("$ref")}])


def _append_all_of(node: dict[str, Json], schemas: list[Json]) -> None:
    existing = node.get("allOf")
    # Appending keeps every existing #/.../allOf/N pointer valid.
    node["allOf"] = [*existing, *schemas] if isinstance(existing, list) else schemas
