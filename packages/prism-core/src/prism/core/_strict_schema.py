"""OpenAI strict function calling: rewrite a JSON Schema into the subset strict mode accepts.

Strict mode needs every object closed (``additionalProperties: false``) with every property listed
in ``required``; an optional property is expressed as "required but nullable", and ``default`` is
not allowed. Anything that cannot be expressed that way raises ``ValueError`` naming the place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._function_values import pointer, to_json
from ._types import JsonObject

__all__ = ["to_strict_json_schema"]

_MAX_DEPTH = 64
_MAX_DEFAULT_TEXT = 200
_MISSING: Any = object()
_UNSUPPORTED = frozenset(
    {
        "prefixItems",
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "contains",
        "minContains",
        "maxContains",
        "uniqueItems",
    }
)
_HINTS = {
    "prefixItems": " (a fixed-length tuple; use list[T] or a TypedDict instead)",
    "oneOf": " (use anyOf)",
}
_REWRITTEN = frozenset(
    {
        "default",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$defs",
        "definitions",
    }
)
_TYPED = ("type", "enum", "const", "anyOf", "$ref")


def to_strict_json_schema(schema: JsonObject) -> dict[str, Any]:
    """A copy of ``schema`` that OpenAI strict function calling accepts; ``schema`` is untouched.

    Every object gets ``additionalProperties: false`` and lists all its properties in
    ``required``; a property that was optional becomes nullable (``anyOf [..., null]``) and its
    ``default`` moves into the description. The handler must treat ``null`` for such a property as
    "not given": function tools built with ``tool`` do. Free-form objects (``dict[str, T]``),
    untyped values (``Any``), tuples (``prefixItems``) and ``allOf``/``oneOf``/``not``/``if`` raise
    ``ValueError`` naming the JSON Pointer of the offending schema.
    """
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        rule = "an object schema ({'type': 'object', ...})"
        raise ValueError(f"to_strict_json_schema.schema must be {rule}, got {schema!r:.200}")
    return _strict(schema, "", 0)


def _strict(node: object, path: str, depth: int) -> dict[str, Any]:
    where = path or "/"
    if depth > _MAX_DEPTH:
        raise ValueError(f"{where}: schema nested deeper than {_MAX_DEPTH} levels")
    if not isinstance(node, Mapping):
        raise ValueError(f"{where}: strict mode needs a schema object, not {node!r}")
    unsupported = sorted(key for key in node if key in _UNSUPPORTED)
    if unsupported:
        keyword = unsupported[0]
        raise ValueError(
            f"{where}: strict mode does not support {keyword!r}{_HINTS.get(keyword, '')}"
        )
    if not any(key in node for key in _TYPED):
        raise ValueError(
            f"{where}: strict mode needs a type; a schema that accepts any value (typing.Any) "
            "cannot be strict"
        )
    out: dict[str, Any] = {
        key: to_json(value) for key, value in node.items() if key not in _REWRITTEN
    }
    kind = node.get("type")
    if "properties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind):
        out.update(_strict_object(node, path, depth))
    if "items" in node:
        out["items"] = _strict(node["items"], f"{path}/items", depth + 1)
    elif kind == "array" or (isinstance(kind, list) and "array" in kind):
        raise ValueError(f"{where}: strict mode needs 'items' for an array")
    if "anyOf" in node:
        branches = node["anyOf"]
        if not isinstance(branches, list | tuple):
            raise ValueError(f"{path}/anyOf: must be a list of schemas")
        out["anyOf"] = [
            _strict(branch, f"{path}/anyOf/{index}", depth + 1)
            for index, branch in enumerate(branches)
        ]
    for keyword in ("$defs", "definitions"):
        definitions = node.get(keyword, _MISSING)
        if definitions is _MISSING:
            continue
        if not isinstance(definitions, Mapping):
            raise ValueError(f"{path}/{keyword}: must be an object")
        out[keyword] = {
            key: _strict(value, pointer(f"{path}/{keyword}", key), depth + 1)
            for key, value in definitions.items()
        }
    return out


def _strict_object(node: Mapping[str, Any], path: str, depth: int) -> dict[str, Any]:
    where = path or "/"
    properties = node.get("properties")
    extra = node.get("additionalProperties", False)
    if extra is not False or not isinstance(properties, Mapping):
        raise ValueError(
            f"{where}: strict mode needs an object with fixed properties and additionalProperties "
            "false; a free-form object (dict[str, T]) cannot be strict"
        )
    required = set(node.get("required", ()))
    rewritten: dict[str, Any] = {}
    for key, value in properties.items():
        strict = _strict(value, pointer(f"{path}/properties", key), depth + 1)
        if key not in required:
            default = value.get("default", _MISSING) if isinstance(value, Mapping) else _MISSING
            strict = _nullable(strict, default)
        rewritten[key] = strict
    out: dict[str, Any] = {"properties": rewritten}
    if rewritten:
        out["required"] = list(rewritten)
    out["additionalProperties"] = False
    return out


def _accepts_null(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    return any(_accepts_null(branch) for branch in schema.get("anyOf", ()))


def _nullable(schema: dict[str, Any], default: object) -> dict[str, Any]:
    """Make ``schema`` accept ``null`` (meaning "not given"); mention a non-null default."""
    description = schema.get("description")
    if not _accepts_null(schema):
        inner = {key: value for key, value in schema.items() if key != "description"}
        schema = {"anyOf": [inner, {"type": "null"}]}
        if description:
            schema["description"] = description
    if default is not _MISSING and default is not None:
        text = json.dumps(default, ensure_ascii=False, separators=(",", ":"))
        if len(text) <= _MAX_DEFAULT_TEXT:
            note = f"Default: {text}."
            schema["description"] = f"{description} {note}" if description else note
    return schema
