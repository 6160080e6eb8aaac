"""Distributed execution: each call is a child workflow on a DBOS queue, run by any worker.

The queue's ``global_concurrency`` and ``worker_concurrency`` bound calls across and within
workers; the parent keeps call order, the turn's concurrency (an exclusive tool: one at a time)
and enqueues in a fixed order so a replay meets its recorded steps in the same order.
"""

from __future__ import annotations

from typing import Any

from dbos import DBOS, Queue
from prism.core import AbortController, AbortSignal, ErrorInfo, ToolResult

from ._call import CallSpec, run_call_steps
from ._codec import Plain, decode_call, decode_result, encode_result
from ._options import QueueOptions

__all__ = ["CALL_WORKFLOW", "register_tool_queue", "run_queued"]

CALL_WORKFLOW = "prism.dbos.call"


async def register_tool_queue(options: QueueOptions) -> Queue:
    """Create or update the tool queue (after ``DBOS.launch()``; every process may call it)."""
    if not isinstance(options, QueueOptions):
        raise TypeError(f"expected QueueOptions, got {type(options).__name__}")
    return await DBOS.register_queue_async(
        options.name,
        global_concurrency=options.global_concurrency,
        worker_concurrency=options.worker_concurrency,
        polling_interval_sec=options.polling_interval_seconds,
        on_conflict="always_update",
    )


async def _step(name: str, fn: Any, *args: Any) -> Any:
    return await DBOS.run_step_async({"name": name}, fn, *args)


@DBOS.workflow(name=CALL_WORKFLOW)
async def _call_workflow(toolset: str, session_id: str, run_id: str, plan: Plain) -> Plain:
    """One queued call: the same marker and pipeline steps, in the worker that dequeued it."""
    spec = CallSpec(toolset, session_id, run_id, plan)
    result = await run_call_steps(spec, _step, _step, AbortController().signal)
    return encode_result(result)


async def run_queued(
    specs: list[CallSpec], options: QueueOptions, limit: int, signal: AbortSignal
) -> tuple[ToolResult, ...]:
    """Enqueue at most ``limit`` calls ahead of the oldest unfinished one; collect in order."""
    queue = await DBOS.retrieve_queue_async(options.name) or await register_tool_queue(options)
    handles: dict[int, Any] = {}
    results: list[ToolResult] = []
    ahead = 0
    for i, spec in enumerate(specs):
        while ahead < len(specs) and ahead < i + limit and not signal.aborted:
            s = specs[ahead]
            handles[ahead] = await queue.enqueue_async(
                _call_workflow, s.toolset, s.session_id, s.run_id, _plan_of(s)
            )
            ahead += 1
        handle = handles.pop(i, None)
        if handle is None:
            spec.aborted = True
            results.append(await run_call_steps(spec, _step, _step, signal))
            continue
        try:
            results.append(decode_result(await handle.get_result()))
        except Exception as exc:
            results.append(_worker_failed(spec, exc))
    return tuple(results)


def _plan_of(spec: CallSpec) -> Plain:
    plan: Plain = {"call": spec.call}
    if spec.middleware_error is not None:
        plan["middleware_error"] = spec.middleware_error
    if spec.denial is not None:
        plan["denial"] = spec.denial
    return plan


def _worker_failed(spec: CallSpec, exc: Exception) -> ToolResult:
    call = decode_call(spec.call)
    error = ErrorInfo(
        code="worker_failed",
        name=type(exc).__name__,
        message=f"the queued call failed on its worker: {exc}"[:2000],
    )
    return ToolResult(tool_call_id=call.id, name=call.name, error=error)
