"""One Prism call and its context from an Agents SDK tool invocation."""

from __future__ import annotations

from typing import Any

from agents.tool_context import ToolContext
from agents.tracing import get_current_trace
from agents.tracing.traces import NoOpTrace

from prism.core import CallScope, ToolCall, ToolExecutionContext, ToolPipeline, parse_tool_call

__all__ = ["prism_call"]


def prism_call(
    name: str, arguments: str, ctx: ToolContext[Any], pipeline: ToolPipeline, scope: CallScope
) -> tuple[ToolCall, ToolExecutionContext]:
    """The call (the SDK's call id, arguments decoded or marked) and its context.

    The run id is the SDK trace's id when tracing is on, so ledger rows join the SDK's traces.
    """
    call = parse_tool_call(
        ctx.tool_call_id, name, arguments, max_bytes=pipeline.gates.max_argument_bytes
    )
    trace = get_current_trace()
    run_id = "" if trace is None or isinstance(trace, NoOpTrace) else trace.trace_id
    context = scope.context(call.id, run_id)
    return call, context
