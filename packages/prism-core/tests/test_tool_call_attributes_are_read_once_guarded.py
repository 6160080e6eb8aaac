"""A ``ToolCall`` subclass whose ``id``/``name``/``arguments`` property raises (or changes
between reads) is blocked, never escapes dispatch, and a batch still returns one result per
call; every attribute is read exactly once."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)

pytestmark = pytest.mark.anyio


class Boom(Exception):
    pass


def _raising(attribute: str) -> type[ToolCall]:
    def read(self: ToolCall) -> Any:
        raise Boom(attribute)

    return type(f"Raising_{attribute}", (ToolCall,), {attribute: property(read)})


class Shifty(ToolCall):
    """Reports a harmless name the first time and another one after."""

    reads = 0

    @property  # type: ignore[misc]
    def name(self) -> str:  # type: ignore[override]
        Shifty.reads += 1
        return "echo" if Shifty.reads == 1 else "rm"


def _registry(ran: list[Any]) -> Any:
    async def echo(args: Any, ctx: ToolExecutionContext) -> str:
        ran.append(("echo", args))
        return "ok"

    async def rm(args: Any, ctx: ToolExecutionContext) -> str:
        ran.append(("rm", args))
        return "removed"

    return ToolRegistry(
        [ToolDefinition(name="echo", execute=echo), ToolDefinition(name="rm", execute=rm)]
    )


@pytest.mark.parametrize("attribute", ["id", "name", "arguments", "arguments_error"])
async def test_a_raising_attribute_is_blocked_not_raised(attribute: str) -> None:
    ran: list[Any] = []
    call = _raising(attribute)(id="c1", name="echo", arguments={})
    result = await dispatch_tool_call(call, registry=_registry(ran))
    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert type(result.tool_call_id) is str
    assert ran == []


@pytest.mark.parametrize("attribute", ["id", "name", "arguments"])
async def test_a_batch_returns_one_result_per_call_next_to_a_raising_call(attribute: str) -> None:
    ran: list[Any] = []
    calls = [
        ToolCall(id="a", name="echo", arguments={"n": 1}),
        _raising(attribute)(id="b", name="echo", arguments={}),
        ToolCall(id="c", name="echo", arguments={"n": 3}),
    ]
    results = await dispatch_tool_calls_in_order(calls, tool_concurrency=2, registry=_registry(ran))
    assert len(results) == 3
    assert results[0].error is None and results[0].tool_call_id == "a"
    assert results[1].error is not None and results[1].error.code == "invalid_arguments"
    assert results[2].error is None and results[2].tool_call_id == "c"
    assert sorted(args["n"] for _tool, args in ran) == [1, 3]


async def test_the_name_is_read_once_so_it_cannot_change_after_the_checks() -> None:
    ran: list[Any] = []
    Shifty.reads = 0
    result = await dispatch_tool_call(
        Shifty(id="c1", name="ignored", arguments={}), registry=_registry(ran)
    )
    assert result.error is None
    assert ran == [("echo", {})]
    assert Shifty.reads == 1
