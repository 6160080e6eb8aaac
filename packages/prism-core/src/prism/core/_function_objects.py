"""Objects for function tools: the compiled-annotation node, fields, and closed object schemas.

``object_node`` builds the schema and converter for anything with named fields: a function's
parameters, a TypedDict, a dataclass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._function_values import ToolArgumentsError, json_type, to_json

__all__ = [
    "NO_DEFAULT",
    "Convert",
    "Field",
    "SchemaNode",
    "json_default",
    "mismatch",
    "object_node",
]

NO_DEFAULT: Any = object()
Convert = Callable[[object], object]


@dataclasses.dataclass(frozen=True, slots=True)
class SchemaNode:
    """A compiled annotation: its JSON Schema and the JSON -> Python converter."""

    schema: dict[str, Any]
    convert: Convert
    nullable: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """One property of an object schema (a parameter, a TypedDict key, a dataclass field)."""

    name: str
    node: SchemaNode
    required: bool
    default: Any = NO_DEFAULT
    description: str | None = None


def mismatch(expected: str, value: object) -> ToolArgumentsError:
    """The error for a value of the wrong JSON type."""
    return ToolArgumentsError(f"expected {expected}, got {json_type(value)}")


def object_node(
    fields: Sequence[Field], build: Callable[[dict[str, object]], object], *, strict: bool
) -> SchemaNode:
    """An object with exactly ``fields`` (``additionalProperties: false``), built by ``build``.

    With ``strict`` (matching the strict-mode form of the schema) every property must be present,
    and ``null`` for an optional one means "not given".
    """
    properties: dict[str, Any] = {}
    for item in fields:
        prop = item.node.schema
        if item.description and "description" not in prop:
            prop = {**prop, "description": item.description}
        if item.default is not NO_DEFAULT:
            prop = {**prop, "default": item.default}
        properties[item.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [item.name for item in fields if item.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    by_name = {item.name: item for item in fields}
    present = list(by_name) if strict else required  # strict mode requires every property

    def convert(value: object) -> object:
        if not isinstance(value, Mapping):
            raise mismatch("object", value)
        out: dict[str, object] = {}
        key: Any = None
        known: Field | None = None
        try:
            for key, entry in value.items():
                known = by_name.get(key)
                if known is None:
                    raise ToolArgumentsError(f"unexpected property {_short(key)}")
                if strict and entry is None and not known.required and not known.node.nullable:
                    continue
                out[key] = known.node.convert(entry)
        except ToolArgumentsError as exc:
            if known is None:
                raise
            raise exc.inside(key) from None
        for name in present:
            if name not in value:
                raise ToolArgumentsError(f"missing required property {name!r}")
        return build(out)

    return SchemaNode(schema, convert)


def _short(key: object) -> str:
    text = repr(key)
    return text if len(text) <= 66 else text[:60] + "...'"


def json_default(default: object, node: SchemaNode) -> Any:
    """The JSON form of ``default`` for the schema, or ``NO_DEFAULT`` if it has none that fits."""
    try:
        encoded = to_json(default)
        node.convert(encoded)
    except (TypeError, ValueError):
        return NO_DEFAULT
    return encoded
