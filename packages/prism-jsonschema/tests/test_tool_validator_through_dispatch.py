"""``create_json_schema_tool_argument_validator`` in the real dispatch pipeline, both backends."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    ErrorInfo,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.jsonschema import (
    CacheInfo,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 14}},
    "required": ["city"],
    "additionalProperties": False,
}


class Handler:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, args: Any, context: ToolExecutionContext) -> str:
        self.calls.append(dict(args))
        return f"forecast for {args['city']}"


def _tool(handler: Handler, parameters: Any = SCHEMA, name: str = "forecast") -> ToolDefinition:
    return ToolDefinition(name=name, execute=handler, parameters=parameters)


async def test_valid_arguments_run_the_handler(engine: str) -> None:
    handler = Handler()
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    call = ToolCall(id="c1", name="forecast", arguments={"city": "Oslo", "days": 3})
    result = await dispatch_tool_call(
        call, registry=ToolRegistry([_tool(handler)]), gates=ToolGates(validator=validate)
    )
    assert result.error is None
    assert handler.calls == [{"city": "Oslo", "days": 3}]


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [({"city": 3}, "/city: "), ({"city": "Oslo", "days": 30}, "/days: "), ({}, "city"),
     ({"city": "Oslo", "hours": 1}, "hours")],
)  # fmt: skip
async def test_invalid_arguments_are_blocked_before_the_handler(
    engine: str, arguments: dict[str, Any], needle: str
) -> None:
    handler = Handler()
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    call = ToolCall(id="c2", name="forecast", arguments=arguments)
    result = await dispatch_tool_call(
        call, registry=ToolRegistry([_tool(handler)]), gates=ToolGates(validator=validate)
    )
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert needle in result.error.message
    assert handler.calls == []


async def test_missing_schema_allow_and_reject(engine: str) -> None:
    handler = Handler()
    registry = ToolRegistry([_tool(handler, parameters=None, name="free")])
    call = ToolCall(id="c3", name="free", arguments={"city": "x"})
    allow = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    assert (
        await dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=allow))
    ).error is None
    reject = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine, missing_schema="reject")
    )
    result = await dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=reject))
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert "no parameter schema" in result.error.message
    assert len(handler.calls) == 1


async def test_a_rejected_schema_blocks_with_its_reason(engine: str) -> None:
    handler = Handler()
    remote = {"type": "object", "properties": {"city": {"$ref": "https://example.com/city"}}}
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    call = ToolCall(id="c4", name="forecast", arguments={"city": "Oslo"})
    registry = ToolRegistry([_tool(handler, parameters=remote)])
    result = await dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=validate))
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert "https://example.com/city" in result.error.message
    assert "fragment-local" in result.error.message
    assert handler.calls == []


def test_the_tool_validator_is_sync_and_exposes_its_cache(engine: str) -> None:
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine, max_errors=2)
    )
    tool = _tool(Handler())
    context: Any = None
    assert validate(tool, {"city": "x"}, context) is None
    blocked = validate(tool, {"city": 1, "days": "x", "z": 0}, context)
    assert isinstance(blocked, ErrorInfo)
    assert blocked.code == "validation_failed"
    assert blocked.message.count("; ") == 1  # at most max_errors=2 errors, joined by "; "
    assert blocked.details is not None
    assert len(blocked.details["errors"]) == 2
    assert validate.cache_info() == CacheInfo(hits=1, misses=1, compiles=1, size=1)
    assert validate.validator.options.max_errors == 2
