"""One Prism call and its context from an Agents SDK tool invocation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.tool_context import ToolContext
from agents.tracing import get_current_trace
from agents.tracing.traces import NoOpTrace

from prism.core import AbortSignal, ToolCall, ToolExecutionContext, ToolPipeline, parse_tool_call

__all__ = ["CallOptions", "prism_call"]

_NEVER_ABORTED = AbortSignal()
"""A signal nobody can abort: its controller does not exist."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallOptions:
    """What every call made through these tools shares: the session id and the abort signal."""

    session_id: str = ""
    signal: AbortSignal | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, str):
            raise ValueError(f"session_id: expected a string, got {type(self.session_id).__name__}")
        if self.signal is not None and not isinstance(self.signal, AbortSignal):
            raise ValueError(f"signal: expected an AbortSignal, got {type(self.signal).__name__}")


def prism_call(
    name: str, arguments: str, ctx: ToolContext[Any], pipeline: ToolPipeline, options: CallOptions
) -> tuple[ToolCall, ToolExecutionContext]:
    """The call (the SDK's call id, arguments decoded or marked) and its context.

    The run id is the SDK trace's id when tracing is on, so ledger rows join the SDK's traces.
    """
    call = parse_tool_call(ctx.tool_call_id, name, arguments, max_bytes=pipeline.max_argument_bytes)
    trace = get_current_trace()
    context = ToolExecutionContext(
        session_id=options.session_id,
        run_id="" if trace is None or isinstance(trace, NoOpTrace) else trace.trace_id,
        tool_call_id=call.id,
        signal=options.signal if options.signal is not None else _NEVER_ABORTED,
    )
    return call, context
