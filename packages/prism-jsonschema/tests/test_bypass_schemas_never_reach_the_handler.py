"""The round-2 bypass schemas through real dispatch, on asyncio and trio: the call is refused
with the schema's reason and the handler never runs with the argument the attack smuggled."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.jsonschema import JsonSchemaValidatorOptions, create_json_schema_tool_argument_validator

pytestmark = pytest.mark.anyio

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"

_ATTACKS: list[tuple[str, dict[str, Any], dict[str, Any], bool, str]] = [
    (
        "class range ending in \\d",
        {"type": "object", "properties": {"x": {"type": "string", "pattern": r"^[!-\d]+$"}}},
        {"x": "#"},
        False,
        "class range",
    ),
    (
        "surrogate-pair escape in a class",
        {
            "type": "object",
            "properties": {"x": {"type": "string", "pattern": "^[\\uD83D\\uDE00]$"}},
        },
        {"x": "\ud83d"},
        False,
        "surrogate pair",
    ),
    (
        "a lone brace",
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a{$"}}},
        {"x": "a{"},
        False,
        "quantifier",
    ),
    (
        "subschema $schema",
        {"$schema": D4, "properties": {"x": {"$schema": D7, "const": "ls"}}},
        {"x": "rm -rf /"},
        False,
        "'$schema' at",
    ),
    (
        "idn-hostname wider than IDNA2008",
        {"type": "object", "properties": {"x": {"type": "string", "format": "idn-hostname"}}},
        {"x": "xn--a.com"},
        True,
        "'idn-hostname'",
    ),
]


class _Handler:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def __call__(self, args: Any, context: ToolExecutionContext) -> str:
        self.calls.append(args)
        return "ran"


@pytest.mark.parametrize(
    ("schema", "arguments", "formats", "needle"),
    [pytest.param(s, a, f, n, id=name) for name, s, a, f, n in _ATTACKS],
)
async def test_a_bypass_schema_is_refused_and_the_handler_never_runs(
    engine: Any, schema: dict[str, Any], arguments: dict[str, Any], formats: bool, needle: str
) -> None:
    handler = _Handler()
    tool = ToolDefinition(name="t", execute=handler, parameters=schema)
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
    )
    result = await dispatch_tool_call(
        ToolCall(id="c1", name="t", arguments=arguments),
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=validate),
    )
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert "schema rejected" in result.error.message
    assert needle in result.error.message
    assert handler.calls == []
