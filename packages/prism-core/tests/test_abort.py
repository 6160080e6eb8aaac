"""Abort signals, and the single abort policy of batch dispatch (sequential == parallel)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from prism.core import (
    AbortController,
    AbortError,
    AbortSignal,
    InMemoryRunLedger,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_calls_in_order,
)
from prism.core._backend import sleep, task_group
from prism.core.testing import abort_after, scaled

pytestmark = pytest.mark.anyio


def test_signal_basics_and_callbacks() -> None:
    controller = AbortController()
    seen: list[str] = []
    remove = controller.signal.add_callback(lambda: seen.append("a"))
    controller.signal.add_callback(lambda: seen.append("b"))
    remove()
    assert not controller.signal.aborted
    controller.signal.throw_if_aborted()
    controller.abort("why")
    controller.abort("again")
    assert controller.signal.aborted and controller.signal.reason == "why"
    assert seen == ["b"]
    controller.signal.add_callback(lambda: seen.append("late"))
    assert seen == ["b", "late"]
    with pytest.raises(AbortError) as info:
        controller.signal.throw_if_aborted()
    assert info.value.reason == "why"


def test_any_follows_the_first_abort() -> None:
    a, b = AbortController(), AbortController()
    combined = AbortSignal.any(a.signal, b.signal)
    b.abort("b first")
    a.abort("a later")
    assert combined.aborted and combined.reason == "b first"
    already = AbortSignal.any(a.signal)
    assert already.aborted and already.reason == "a later"


async def test_wait_wakes_on_abort_from_another_thread() -> None:
    controller = AbortController()
    timer = threading.Timer(0.05, controller.abort, args=("from thread",))
    timer.start()
    started = time.perf_counter()
    await controller.signal.wait()
    assert time.perf_counter() - started < scaled(5)
    assert controller.signal.reason == "from thread"


def _tools(log: list[str]) -> list[ToolDefinition]:
    async def honours(args: Any, ctx: ToolExecutionContext) -> str:
        log.append(f"start {ctx.tool_call_id}")
        await ctx.signal.wait()
        log.append(f"saw abort {ctx.tool_call_id}")
        return "stopped early"

    async def ignores(args: Any, ctx: ToolExecutionContext) -> str:
        log.append(f"start {ctx.tool_call_id}")
        await sleep(30)
        log.append(f"finished {ctx.tool_call_id}")
        return "never"

    async def quick(args: Any, ctx: ToolExecutionContext) -> str:
        log.append(f"start {ctx.tool_call_id}")
        return "quick"

    return [
        ToolDefinition(name="honours", execute=honours),
        ToolDefinition(name="ignores", execute=ignores),
        ToolDefinition(name="quick", execute=quick),
    ]


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_abort_mid_batch(concurrency: int, events: Any) -> None:
    log: list[str] = []
    controller = AbortController()
    ledger = InMemoryRunLedger()
    names = (
        ["quick", "honours", "ignores", "quick"]
        if concurrency > 1
        else ["quick", "ignores", "quick"]
    )
    calls = [ToolCall(id=f"c{i}", name=n, arguments={}) for i, n in enumerate(names)]
    started = time.perf_counter()
    async with task_group() as group:
        group.start_soon(lambda: abort_after(controller, 0.1, "user stop"))
        results = await dispatch_tool_calls_in_order(
            calls,
            tool_concurrency=concurrency,
            signal=controller.signal,
            abort_grace_seconds=0.2,
            registry=ToolRegistry(_tools(log)),
            emit=events,
            gates=ToolGates(ledger=ledger),
        )
    elapsed = time.perf_counter() - started
    assert elapsed < scaled(5), "the stubborn handler must be cancelled after the grace period"
    codes = [r.error.code if r.error else "ok" for r in results]
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    assert codes[0] == "ok"  # completed before the abort: kept
    assert codes[-1] == "aborted"  # never started after the abort
    ignored = names.index("ignores")
    assert codes[ignored] == "aborted"
    assert f"finished c{ignored}" not in log
    if concurrency > 1:
        assert "saw abort c1" in log and codes[1] == "ok"
    assert f"start c{len(calls) - 1}" not in log, "no call starts after the abort"
    final = {r.tool_call_id: r.status for r in ledger.records if r.status != "started"}
    assert set(final) == {c.id for c in calls}
    assert final[f"c{ignored}"] == "error" and final[f"c{len(calls) - 1}"] == "blocked"


async def test_signal_already_aborted_starts_nothing() -> None:
    log: list[str] = []
    controller = AbortController()
    controller.abort()
    results = await dispatch_tool_calls_in_order(
        [ToolCall(id="a", name="quick", arguments={})],
        signal=controller.signal,
        registry=ToolRegistry(_tools(log)),
    )
    assert log == []
    assert results[0].error is not None and results[0].error.code == "aborted"


async def test_no_task_outlives_the_batch() -> None:
    log: list[str] = []
    controller = AbortController()
    async with task_group() as group:
        group.start_soon(lambda: abort_after(controller, 0.05, "user stop"))
        await dispatch_tool_calls_in_order(
            [ToolCall(id="x", name="ignores", arguments={})],
            signal=controller.signal,
            abort_grace_seconds=0.05,
            registry=ToolRegistry(_tools(log)),
        )
    await sleep(0.1)
    assert log == ["start x"]
