"""The validator seam: None passes; any str (even empty) or ErrorInfo blocks."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    ErrorInfo,
    ToolArgumentValidationIssue,
    ToolArgumentValidationResult,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    create_tool_parameter_validator,
    dispatch_tool_call,
)

pytestmark = pytest.mark.anyio


async def _dispatch(canary: Any, validate: Any, parameters: Any = None) -> Any:
    tool = canary.tool("echo", parameters=parameters)
    return await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={"n": 1}),
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=validate),
    )


@pytest.mark.parametrize(
    ("outcome", "blocked"),
    [(None, False), ("", True), ("n is wrong", True), (ErrorInfo(message="nope"), True)],
)
async def test_validator_outcomes(canary: Any, outcome: object, blocked: bool) -> None:
    result = await _dispatch(canary, lambda tool, args, ctx: outcome)
    assert result.is_error is blocked
    assert canary.entered == ([] if blocked else ["c"])
    if blocked:
        assert result.error.code == "validation_failed"
        assert result.error.message  # an empty str still gets a message a model can read


async def test_async_validator_receives_tool_args_and_context(canary: Any) -> None:
    seen: list[tuple[str, Any, str]] = []

    async def validate(tool: ToolDefinition, args: Any, ctx: ToolExecutionContext) -> None:
        seen.append((tool.name, dict(args), ctx.tool_call_id))

    result = await _dispatch(canary, validate)
    assert not result.is_error
    assert seen == [("echo", {"n": 1}, "c")]


async def test_raising_validator_blocks(canary: Any) -> None:
    def validate(tool: Any, args: Any, ctx: Any) -> None:
        raise KeyError("schema")

    result = await _dispatch(canary, validate)
    assert result.error.code == "validation_failed"
    assert "KeyError" in result.error.message
    assert canary.entered == []


class _Positive:
    """A tiny ToolArgumentValidator: every number in the object must be positive."""

    def __init__(self) -> None:
        self.schemas: list[Any] = []

    def validate(self, schema: Any, value: Any) -> ToolArgumentValidationResult:
        self.schemas.append(schema)
        errors = tuple(
            ToolArgumentValidationIssue(path=f"/{k}", message="must be positive")
            for k, v in value.items()
            if isinstance(v, int) and v <= 0
        )
        return ToolArgumentValidationResult(ok=not errors, errors=errors)


async def test_parameter_validator_renders_paths(canary: Any) -> None:
    validator = create_tool_parameter_validator(_Positive())
    tool = canary.tool("echo", parameters={"type": "object"})
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={"a": 0, "b": -1, "c": 2}),
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=validator),
    )
    assert result.error.message == "/a: must be positive; /b: must be positive"
    assert canary.entered == []


async def test_missing_schema_allow_and_reject(canary: Any) -> None:
    inner = _Positive()
    allowed = await _dispatch(canary, create_tool_parameter_validator(inner))
    assert not allowed.is_error and inner.schemas == []
    rejected = await _dispatch(
        canary, create_tool_parameter_validator(inner, missing_schema="reject")
    )
    assert rejected.error.code == "validation_failed"
    assert "no parameter schema" in rejected.error.message
    with pytest.raises(ValueError, match="missing_schema"):
        create_tool_parameter_validator(inner, missing_schema="maybe")  # type: ignore[arg-type]


async def test_validator_details_reach_the_blocked_result(canary: Any) -> None:
    validator = create_tool_parameter_validator(_Positive())
    tool = canary.tool("echo", parameters={"type": "object"})
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={"a": 0}),
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=validator),
    )
    assert result.error.details == {"errors": [{"path": "/a", "message": "must be positive"}]}


def test_root_level_errors_render_without_an_empty_pointer() -> None:
    from prism.core._validation import render_validation_errors

    errors = (
        ToolArgumentValidationIssue(path="", message="additional properties are not allowed"),
        ToolArgumentValidationIssue(path=None, message="bad"),
        ToolArgumentValidationIssue(path="/x", message="wrong"),
    )
    assert render_validation_errors(errors) == (
        "additional properties are not allowed; bad; /x: wrong"
    )
