"""OpenAI strict function calling: ``to_strict_json_schema`` and ``tool(strict=True)``."""

import copy
import dataclasses
from typing import Any, Literal, TypedDict

import pytest

from prism.core import ToolExecutionContext, ToolResult
from prism.core._abort import AbortController
from prism.core.functions import to_strict_json_schema, tool


def context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


class Options(TypedDict, total=False):
    depth: int
    follow: bool


@dataclasses.dataclass
class Window:
    start: int
    end: int | None = None


def search(
    query: str,
    limit: int = 10,
    order: Literal["asc", "desc"] = "asc",
    tag: str | None = None,
    options: Options | None = None,
    window: Window | None = None,
) -> dict[str, Any]:
    """Search.

    Args:
        query: Text to find.
        limit: Most results.
    """
    return {
        "query": query,
        "limit": limit,
        "order": order,
        "tag": tag,
        "options": options,
        "window": window,
    }


NULL = {"type": "null"}
STRICT_OPTIONS = {
    "type": "object",
    "properties": {
        "depth": {"anyOf": [{"type": "integer"}, NULL]},
        "follow": {"anyOf": [{"type": "boolean"}, NULL]},
    },
    "required": ["depth", "follow"],
    "additionalProperties": False,
}
STRICT_WINDOW = {
    "type": "object",
    "properties": {
        "start": {"type": "integer"},
        "end": {"anyOf": [{"type": "integer"}, NULL]},
    },
    "required": ["start", "end"],
    "additionalProperties": False,
}
STRICT_SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Text to find."},
        "limit": {
            "anyOf": [{"type": "integer"}, NULL],
            "description": "Most results. Default: 10.",
        },
        "order": {
            "anyOf": [{"type": "string", "enum": ["asc", "desc"]}, NULL],
            "description": 'Default: "asc".',
        },
        "tag": {"anyOf": [{"type": "string"}, NULL]},
        "options": {"anyOf": [STRICT_OPTIONS, NULL]},
        "window": {"anyOf": [STRICT_WINDOW, NULL]},
    },
    "required": ["query", "limit", "order", "tag", "options", "window"],
    "additionalProperties": False,
}


def test_strict_schema_requires_everything_and_makes_optional_nullable() -> None:
    plain = tool(search)
    assert plain.parameters is not None
    original = copy.deepcopy(plain.parameters)
    assert to_strict_json_schema(plain.parameters) == STRICT_SEARCH
    assert plain.parameters == original  # the input is not modified


def test_strict_tool_carries_the_strict_schema_and_marks_itself() -> None:
    strict = tool(search, strict=True)
    assert strict.parameters == STRICT_SEARCH
    assert strict.metadata == {"strict": True}
    assert tool(search).metadata == {}


def test_strict_tool_maps_null_to_the_default_everywhere() -> None:
    strict = tool(search, strict=True)
    arguments = {
        "query": "q",
        "limit": None,
        "order": None,
        "tag": None,
        "options": {"depth": None, "follow": True},
        "window": {"start": 1, "end": None},
    }
    result = strict.execute(arguments, context())
    assert isinstance(result, ToolResult)
    assert result.value == {
        "query": "q",
        "limit": 10,
        "order": "asc",
        "tag": None,
        "options": {"follow": True},
        "window": {"start": 1, "end": None},
    }


def test_a_non_strict_tool_refuses_null_for_a_non_nullable_parameter() -> None:
    with pytest.raises(ValueError, match="/limit: expected integer, got null"):
        tool(search).execute({"query": "q", "limit": None}, context())


def test_every_object_in_a_strict_schema_is_closed_and_fully_required() -> None:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                assert node["additionalProperties"] is False
                assert node.get("required", []) == list(node["properties"])
            assert "default" not in node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tool(search, strict=True).parameters)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            {"type": "array", "items": {"type": "string"}},
            "to_strict_json_schema.schema must be an object schema",
        ),
        ({"anyOf": [{"type": "object"}]}, "to_strict_json_schema.schema must be an object schema"),
        (
            {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}},
            "/properties/m: strict mode needs an object with fixed properties",
        ),
        ({"type": "object"}, "/: strict mode needs an object with fixed properties"),
        (
            {"type": "object", "properties": {}, "additionalProperties": True},
            "/: strict mode needs an object with fixed properties",
        ),
        (
            {"type": "object", "properties": {"v": {}}},
            "/properties/v: strict mode needs a type; a schema that accepts any value",
        ),
        (
            {"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{}]}}},
            "/properties/t: strict mode does not support 'prefixItems' (a fixed-length tuple",
        ),
        (
            {"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}]}}},
            "strict mode does not support 'oneOf' (use anyOf)",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "array"}}},
            "/properties/a: strict mode needs 'items' for an array",
        ),
        (
            {"type": "object", "properties": {"b": True}},
            "/properties/b: strict mode needs a schema object, not True",
        ),
        (
            {"type": "object", "properties": {"a/b": {"allOf": []}}},
            "/properties/a~1b: strict mode does not support 'allOf'",
        ),
    ],
)
def test_schemas_strict_mode_cannot_express_raise_value_error_with_a_pointer(
    schema: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        to_strict_json_schema(schema)
    assert message in str(caught.value)


def test_refs_and_definitions_are_rewritten_too() -> None:
    schema = {
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item"}},
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
                "required": ["name"],
            }
        },
    }
    strict = to_strict_json_schema(schema)
    assert strict["properties"] == {"item": {"anyOf": [{"$ref": "#/$defs/Item"}, NULL]}}
    assert strict["$defs"]["Item"] == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "size": {"anyOf": [{"type": "integer"}, NULL]},
        },
        "required": ["name", "size"],
        "additionalProperties": False,
    }


def test_already_nullable_properties_are_not_wrapped_twice() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"enum": ["x", None]},
            "c": {"type": "integer", "default": None, "description": "C."},
        },
    }
    strict = to_strict_json_schema(schema)
    assert strict["properties"] == {
        "a": {"type": ["string", "null"]},
        "b": {"enum": ["x", None]},
        "c": {"anyOf": [{"type": "integer"}, NULL], "description": "C."},
    }


def test_long_defaults_are_not_copied_into_the_description() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x" * 500}}}
    assert to_strict_json_schema(schema)["properties"]["a"] == {"anyOf": [{"type": "string"}, NULL]}


def test_tools_that_cannot_be_strict_fail_at_decoration() -> None:
    def free(data: dict[str, int]) -> None: ...

    def pair(point: tuple[int, int]) -> None: ...

    with pytest.raises(TypeError, match="tool 'free' cannot use strict mode: /properties/data"):
        tool(free, strict=True)
    with pytest.raises(TypeError, match=r"tool 'pair' cannot use strict mode: .*prefixItems"):
        tool(pair, strict=True)


def test_strict_schemas_are_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(STRICT_SEARCH)
    validator = jsonschema.Draft202012Validator(STRICT_SEARCH)
    assert not validator.is_valid({"query": "q"})  # everything is required
    assert validator.is_valid(
        {"query": "q", "limit": None, "order": None, "tag": None, "options": None, "window": None}
    )
