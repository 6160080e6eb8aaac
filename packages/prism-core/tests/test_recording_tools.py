"""RecordingTools: the shared test double records calls, peak concurrency and exclusive overlap."""

from __future__ import annotations

import anyio
import pytest

from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import RecordingTools, scaled

pytestmark = pytest.mark.anyio


async def test_calls_and_peak_concurrency_are_recorded() -> None:
    ran = RecordingTools()
    tools = [ran.tool("slow", delay=0.05), ran.tool("lock", delay=0.01, exclusive=True)]
    registry = ToolRegistry(tools)
    calls = [ToolCall(id=f"c{i}", name="slow", arguments={}) for i in range(3)]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(calls, registry=registry, tool_concurrency=3)
        assert ran.peak == 3
        calls += [ToolCall(id="x1", name="lock", arguments={})]  # an exclusive turn: one by one
        results = await dispatch_tool_calls_in_order(calls, registry=registry, tool_concurrency=3)
    assert [r.tool_call_id for r in results] == ["c0", "c1", "c2", "x1"]
    assert sorted(ran.calls[:3]) == ["c0", "c1", "c2"]
    assert ran.calls[3:] == ["c0", "c1", "c2", "x1"]
    assert not ran.exclusive_overlap
    assert ran.active == 0


async def test_an_exclusive_tool_beside_another_is_reported() -> None:
    ran = RecordingTools()
    slow, lock = ran.tool("slow", delay=0.05), ran.tool("lock", exclusive=True)
    assert lock.exclusive and not slow.exclusive
    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(_run, slow, "a")
            await anyio.sleep(0.01)
            group.start_soon(_run, lock, "b")  # called directly: no dispatcher keeps it apart
    assert ran.exclusive_overlap


async def _run(tool: ToolDefinition, call_id: str) -> None:
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id=call_id, signal=AbortController().signal
    )
    await tool.execute({}, context)  # type: ignore[misc]
