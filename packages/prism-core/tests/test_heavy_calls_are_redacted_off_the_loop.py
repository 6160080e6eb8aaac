"""A call whose arguments or result are large is redacted (its events, ledger rows and result)
in a worker thread: a redactor walks everything it is given, and that walk must not stall the
event loop. Small calls stay on the loop (no thread hop on the hot path)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from prism.core import (
    REDACTED,
    InMemoryRunLedger,
    SecretRedactor,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)
from prism.core._weight import LOOP_WEIGHT, heavier_than
from prism.core.events import AgentEvent
from prism.core.testing import longest_loop_gap, scaled

_SECRET = "tok-5ecret-value"


def _tree(levels: int) -> Any:
    """2**levels leaves in distinct lists, each the secret."""
    return [_SECRET] if levels == 0 else [_tree(levels - 1), _tree(levels - 1)]


def _mentions_secret(value: object) -> bool:
    return _SECRET in repr(value)


async def _dispatch(
    call: ToolCall, execute: Any
) -> tuple[ToolResult, float, list[AgentEvent], InMemoryRunLedger]:
    events: list[AgentEvent] = []
    ledger = InMemoryRunLedger()
    registry = ToolRegistry([ToolDefinition(name="t", execute=execute)])
    with anyio.fail_after(scaled(60)):
        result, gap = await longest_loop_gap(
            lambda: dispatch_tool_call(
                call,
                registry=registry,
                emit=events.append,
                gates=ToolGates(ledger=ledger, redactor=SecretRedactor([_SECRET])),
            )
        )
    return result, gap, events, ledger


@pytest.mark.anyio
async def test_large_arguments_are_redacted_without_stalling_the_loop() -> None:
    async def handler(args: Any, context: ToolExecutionContext) -> str:
        return "ok"

    call = ToolCall(id="1", name="t", arguments={"x": _tree(13), "y": _SECRET})
    result, gap, events, ledger = await _dispatch(call, handler)
    assert result.error is None
    assert [e.type for e in events] == ["tool_execution_started", "tool_execution_finished"]
    assert [r.status for r in ledger.records] == ["started", "finished"]
    assert not _mentions_secret(events) and not _mentions_secret(ledger.records)
    assert ledger.records[0].arguments["y"] == REDACTED
    assert gap < scaled(0.05), f"heartbeat gap {gap * 1000:.0f} ms"


@pytest.mark.anyio
async def test_a_large_result_is_redacted_without_stalling_the_loop() -> None:
    value = {"tree": _tree(13), "y": _SECRET}  # built before the measurement

    async def handler(args: Any, context: ToolExecutionContext) -> Any:
        return value

    call = ToolCall(id="1", name="t", arguments={})
    result, gap, events, ledger = await _dispatch(call, handler)
    assert result.error is None
    assert isinstance(result.value, dict) and result.value["y"] == REDACTED
    assert not _mentions_secret(result) and not _mentions_secret(events)
    assert not _mentions_secret(ledger.records)
    assert gap < scaled(0.05), f"heartbeat gap {gap * 1000:.0f} ms"


def test_the_weight_walk_stops_at_its_budget_and_counts_text() -> None:
    assert not heavier_than({"a": [1, 2, 3], "b": "x" * 1000}, LOOP_WEIGHT)
    assert heavier_than({"b": "x" * (64 * LOOP_WEIGHT)}, LOOP_WEIGHT)
    assert heavier_than(
        ToolResult(tool_call_id="1", name="t", value=[0] * LOOP_WEIGHT), LOOP_WEIGHT
    )
    looped: list[Any] = []
    looped.append(looped)  # a cycle ends at the budget, it does not spin
    assert heavier_than(looped, LOOP_WEIGHT)
