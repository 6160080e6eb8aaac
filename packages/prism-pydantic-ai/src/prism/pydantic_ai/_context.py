"""One Prism call and its context from a pydantic-ai tool call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prism.core import AbortSignal, ToolCall, ToolExecutionContext
from pydantic_ai import RunContext

__all__ = ["CallOptions", "prism_call"]

_NEVER_ABORTED = AbortSignal()
"""A signal nobody can abort: its controller does not exist."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallOptions:
    """What every call made through a toolset shares: its session id and the host's abort signal."""

    session_id: str = ""
    signal: AbortSignal | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, str):
            raise ValueError(f"session_id: expected a string, got {type(self.session_id).__name__}")
        if self.signal is not None and not isinstance(self.signal, AbortSignal):
            raise ValueError(f"signal: expected an AbortSignal, got {type(self.signal).__name__}")


def prism_call(
    name: str, tool_args: dict[str, Any], ctx: RunContext[Any], options: CallOptions
) -> tuple[ToolCall, ToolExecutionContext]:
    """The ``ToolCall`` (pydantic-ai's call id) and the context (its run id, our session)."""
    call_id = ctx.tool_call_id or f"{name}-{ctx.run_step}"
    call = ToolCall(id=call_id, name=name, arguments=tool_args)
    context = ToolExecutionContext(
        session_id=options.session_id,
        run_id=ctx.run_id or "",
        tool_call_id=call_id,
        signal=options.signal if options.signal is not None else _NEVER_ABORTED,
    )
    return call, context
