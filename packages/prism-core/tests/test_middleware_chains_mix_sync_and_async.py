"""A middleware chain may mix sync and async hooks: each runs once, in order, on the value the
previous one left, and a wrong return fails closed wherever it sits in the chain."""

from __future__ import annotations

import dataclasses

import pytest

from prism.core import (
    JsonObject,
    MiddlewareRegistry,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)

pytestmark = pytest.mark.anyio


async def _echo(arguments: JsonObject, context: ToolExecutionContext) -> str:
    return str(arguments.get("n"))


def _bump(call: ToolCall) -> ToolCall:
    number = call.arguments["n"]
    assert isinstance(number, int)
    return dataclasses.replace(call, arguments={"n": number + 1})


async def _double(call: ToolCall) -> ToolCall:
    number = call.arguments["n"]
    assert isinstance(number, int)
    return dataclasses.replace(call, arguments={"n": number * 2})


async def _keep_async(call: ToolCall) -> None:
    return None


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        ((_bump, _double, _bump), "9"),  # (3 + 1) * 2 + 1
        ((_double, _bump, _keep_async, _double), "14"),  # (3 * 2 + 1) * 2
        ((_bump, lambda call: None, _bump), "5"),
        ((), "3"),
    ],
    ids=["sync-async-sync", "async-first", "sync-only", "none"],
)
async def test_hooks_run_in_order_on_the_value_left_by_the_previous(
    hooks: tuple[object, ...], expected: str
) -> None:
    middleware = MiddlewareRegistry()
    for hook in hooks:
        middleware.use("tool_call", hook)  # type: ignore[arg-type]
    registry = ToolRegistry([ToolDefinition(name="echo", execute=_echo)])
    call = ToolCall(id="c1", name="echo", arguments={"n": 3})
    result = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(middleware=middleware)
    )
    assert result.content[0].text == expected  # type: ignore[union-attr]
    ran = await middleware.run("tool_call", call, ToolCall)
    assert ran.arguments == {"n": int(expected)}


async def _wrong_async(result: ToolResult) -> object:
    return "not a result"


@pytest.mark.parametrize("position", [0, 1])
async def test_a_wrong_return_after_an_async_hook_fails_closed(position: int) -> None:
    middleware = MiddlewareRegistry()
    hooks = [lambda result: None, _wrong_async]
    for hook in hooks[position:] + hooks[:position]:
        middleware.use("tool_result", hook)  # type: ignore[arg-type]
    registry = ToolRegistry([ToolDefinition(name="echo", execute=_echo)])
    call = ToolCall(id="c1", name="echo", arguments={"n": 1})
    result = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(middleware=middleware)
    )
    assert result.is_error and "_wrong_async" in (result.error.message if result.error else "")
    with pytest.raises(TypeError, match="expected ToolResult or None"):
        await middleware.run("tool_result", ToolResult(tool_call_id="c1", name="echo"), ToolResult)
