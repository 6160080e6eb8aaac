"""Durable batch dispatch: one model turn's calls inside a DBOS workflow, results in call order.

Same contract as ``prism.core.dispatch_tool_calls_in_order`` (order, bounded concurrency, an
exclusive tool serializes its turn, one abort policy), with every call recorded as steps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from dbos import DBOS, StepReservation
from prism.core import AbortSignal, ToolCall, ToolResult
from prism.core.lowlevel import (
    NEVER_ABORTED,
    MoveOnScope,
    apply_call_middleware,
    error_info_from,
)

from ._approval import AWAITING_APPROVAL_EVENT, await_decision
from ._call import CallSpec, mark, needs_marker, run_call_steps
from ._codec import Plain, decode_call, encode_call
from ._guard import require_workflow
from ._queue import run_queued
from ._toolset import DurableToolset, toolset_named

__all__ = ["durable_dispatch_tool_calls_in_order"]


async def durable_dispatch_tool_calls_in_order(
    calls: Sequence[ToolCall],
    *,
    toolset: DurableToolset | str,
    session_id: str = "",
    signal: AbortSignal | None = None,
) -> tuple[ToolResult, ...]:
    """Dispatch ``calls`` durably from inside a DBOS workflow (the workflow id is the run id).

    Each call's pipeline is one recorded step keyed by workflow and step id; a replay returns
    the recorded results. Approvals (``toolset.approval``) are awaited first, in call order.
    With ``toolset.queue`` the calls run on queue workers instead of this process.
    """
    run_id = require_workflow("durable_dispatch_tool_calls_in_order")
    ts = toolset if isinstance(toolset, DurableToolset) else toolset_named(toolset)
    signal = signal or NEVER_ABORTED
    if not calls:
        return ()
    encoded = [encode_call(c) for c in calls]
    planning = DBOS.reserve_step()
    turn = planning.step_id  # unique in the run and the same on replay: keys this turn's waits
    plans: list[Plain]
    if ts.middleware is not None and ts.middleware.has("tool_call"):
        plans = await planning.run_async({"name": "prism.plan"}, _plan, ts.name, encoded)
    else:  # nothing to record: the plan is the calls themselves
        plans = [{"call": data} for data in encoded]
    if ts.approval is not None:
        await _approvals(ts, plans, turn)
    specs = [CallSpec(ts.name, session_id, run_id, p) for p in plans]
    exclusive = any(_exclusive(ts, s) for s in specs)
    limit = 1 if exclusive else min(ts.tool_concurrency, len(specs))
    if ts.queue is not None:
        return await run_queued(specs, ts.queue, limit, signal, str(turn))
    return await _run_local(specs, limit, signal, ts.abort_grace_seconds)


async def _plan(toolset_name: str, calls: list[Plain]) -> list[Plain]:
    """Step: the ``tool_call`` middleware of every call, first (exclusivity needs final names)."""
    middleware = toolset_named(toolset_name).middleware
    plans: list[Plain] = []
    for data in calls:
        call = decode_call(data)
        try:
            plans.append({"call": encode_call(await apply_call_middleware(call, middleware))})
        except Exception as exc:
            info = error_info_from(exc)
            message = f"tool_call middleware failed: {info.name}: {info.message}"
            plans.append({"call": data, "middleware_error": message})
    return plans


async def _approvals(ts: DurableToolset, plans: list[Plain], turn: int) -> None:
    """Wait, in call order, for each call that needs a decision; record refusals in its plan."""
    assert ts.approval is not None
    waited = False
    for index, plan in enumerate(plans):
        if plan.get("middleware_error") is not None:
            continue
        name = plan["call"]["name"]
        if ts.approval.needs_approval(name, ts.tool(name)):
            waited = True
            denial = await await_decision(plan, ts.approval, turn, index)
            if denial is not None:
                plan["denial"] = denial
    if waited:
        await DBOS.set_event_async(AWAITING_APPROVAL_EVENT, None)


def _exclusive(ts: DurableToolset, spec: CallSpec) -> bool:
    tool = ts.tool(spec.call["name"])
    return tool is not None and tool.exclusive


def _reserved(reservation: StepReservation) -> Any:
    async def run(name: str, fn: Any, *args: Any) -> Any:
        return await reservation.run_async({"name": name}, fn, *args)

    return run


async def _run_local(
    specs: list[CallSpec], limit: int, signal: AbortSignal, grace: float
) -> tuple[ToolResult, ...]:
    """Workers pull calls in order; step ids are reserved first so replay matches them.

    The first ``limit`` calls start at once and share one marker; each later call that needs
    one records its own just before it starts.
    """
    needs = [needs_marker(spec) for spec in specs]
    first = min(limit, len(specs))
    wave = _reserved(DBOS.reserve_step()) if any(needs[:first]) else None
    markers = [
        _reserved(DBOS.reserve_step()) if needs[i] and i >= first else None
        for i in range(len(specs))
    ]
    pipelines = [_reserved(DBOS.reserve_step()) for _ in specs]
    results: list[ToolResult | None] = [None] * len(specs)
    pending = iter(range(len(specs)))
    scopes: dict[int, MoveOnScope] = {}
    wave_interrupted = await mark(wave) if wave is not None else False

    async def worker() -> None:
        for i in pending:
            if signal.aborted:
                return
            marker = markers[i]
            interrupted = wave_interrupted if i < first else False
            if marker is not None:
                interrupted = await mark(marker)
            results[i] = await run_call_steps(
                specs[i], pipelines[i], signal, scopes, interrupted=interrupted and needs[i]
            )

    async def watcher(done: asyncio.Event) -> None:
        aborted = asyncio.ensure_future(signal.wait())
        finished = asyncio.ensure_future(done.wait())
        await asyncio.wait({aborted, finished}, return_when=asyncio.FIRST_COMPLETED)
        if not done.is_set():
            try:
                await asyncio.wait_for(done.wait(), grace)
            except TimeoutError:
                for scope in list(scopes.values()):
                    scope.cancel()
        for task in (aborted, finished):
            task.cancel()

    done = asyncio.Event()
    async with asyncio.TaskGroup() as outer:
        if signal is not NEVER_ABORTED:
            outer.create_task(watcher(done))
        async with asyncio.TaskGroup() as workers:
            for _ in range(limit):
                workers.create_task(worker())
        done.set()
    for i, spec in enumerate(specs):
        if results[i] is None:
            spec.aborted = True
            results[i] = await run_call_steps(spec, pipelines[i], signal)
    return tuple(r for r in results if r is not None)
