"""Durable batch dispatch: one model turn's calls inside a DBOS workflow, results in call order.

It is ``prism.core.dispatch_tool_calls_in_order`` itself (order, bounded concurrency, an
exclusive tool serializes its turn, one abort policy) with prism-dbos as its step hook, so
every call is recorded as steps.
"""

from __future__ import annotations

from collections.abc import Sequence

from prism.core import AbortSignal, ToolCall, ToolResult, dispatch_tool_calls_in_order
from prism.core.lowlevel import NEVER_ABORTED

from ._guard import require_workflow
from ._hook import DurableSteps
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
    context = ts.context(session_id, run_id, "", signal)
    return await dispatch_tool_calls_in_order(
        calls, tool_concurrency=ts.tool_concurrency, signal=signal,
        abort_grace_seconds=ts.abort_grace_seconds,
        step_hook=DurableSteps(ts, session_id, run_id, signal), **ts.settings(context),
    )  # fmt: skip
