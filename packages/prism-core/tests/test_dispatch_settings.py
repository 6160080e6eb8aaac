"""Dispatch settings are checked the same way on every entry point, with no value exempt."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core._handler import _ASYNC_HANDLERS, ASYNC_HANDLER_CACHE_SIZE

CALL = ToolCall(id="c", name="noop", arguments={})


async def _noop(arguments: object, context: ToolExecutionContext) -> str:
    return "ok"


REGISTRY = ToolRegistry([ToolDefinition(name="noop", execute=_noop)])


async def _single(**settings: Any) -> object:
    return await dispatch_tool_call(CALL, **settings)


async def _batch(**settings: Any) -> object:
    return await dispatch_tool_calls_in_order([CALL], **settings)


async def _pipeline(**settings: Any) -> object:
    pipeline = ToolPipeline(registry=settings["registry"], gates=settings["gates"] or ToolGates())
    return await pipeline.dispatch(CALL, settings["context"])


ENTRY_POINTS = [_single, _batch]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (1_048_576.0, TypeError),
        (True, TypeError),
        ("1048576", TypeError),
        (0, ValueError),
        (-1, ValueError),
        (16_777_217, ValueError),
    ],
)
def test_every_bad_argument_limit_is_refused_even_one_equal_to_the_default(
    value: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match=r"ToolGates\.max_argument_bytes must be an int"):
        ToolGates(max_argument_bytes=value)  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("gates", [{"permission": None}, "ToolGates()", 0])
async def test_gates_that_are_not_a_tool_gates_are_refused(entry: Any, gates: object) -> None:
    with pytest.raises(TypeError, match="gates must be a ToolGates"):
        await entry(registry=REGISTRY, gates=gates)


@pytest.mark.anyio
@pytest.mark.parametrize("entry", ENTRY_POINTS)
async def test_an_unknown_setting_is_named(entry: Any) -> None:
    with pytest.raises(TypeError, match="unknown settings: permision"):
        await entry(registry=REGISTRY, permision=None)


@pytest.mark.anyio
@pytest.mark.parametrize("entry", ENTRY_POINTS)
async def test_a_missing_registry_is_named(entry: Any) -> None:
    with pytest.raises(TypeError, match=r"^dispatch\.registry must be a ToolLookup"):
        await entry()


@pytest.mark.anyio
@pytest.mark.parametrize("entry", [*ENTRY_POINTS, _pipeline])
@pytest.mark.parametrize("gates", [None, ToolGates()])
@pytest.mark.parametrize("context", [{"session_id": "s"}, "ctx", object()])
async def test_a_context_that_is_not_a_tool_execution_context_is_named(
    entry: Any, gates: ToolGates | None, context: object
) -> None:
    with pytest.raises(TypeError, match=r"^dispatch\.context must be a ToolExecutionContext"):
        await entry(registry=REGISTRY, gates=gates, context=context)


@pytest.mark.anyio
@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("gates", [None, ToolGates()])
async def test_an_event_sink_that_cannot_be_called_is_named(
    entry: Any, gates: ToolGates | None
) -> None:
    with pytest.raises(TypeError, match=r"^dispatch\.emit must be callable"):
        await entry(registry=REGISTRY, gates=gates, emit=[])


@pytest.mark.anyio
async def test_a_given_limit_in_range_applies() -> None:
    call = ToolCall(id="c", name="noop", arguments={"text": "x" * 200})
    result = await dispatch_tool_call(
        call, registry=REGISTRY, gates=ToolGates(max_argument_bytes=100)
    )
    assert result.error is not None and result.error.code == "invalid_arguments"


@pytest.mark.anyio
async def test_the_async_handler_cache_stays_bounded() -> None:
    def fresh(i: int) -> ToolDefinition:
        async def execute(arguments: object, context: ToolExecutionContext) -> str:
            return str(i)

        return ToolDefinition(name="noop", execute=execute)

    for i in range(ASYNC_HANDLER_CACHE_SIZE + 50):
        await dispatch_tool_call(CALL, registry=ToolRegistry([fresh(i)]))
        assert len(_ASYNC_HANDLERS) <= ASYNC_HANDLER_CACHE_SIZE
