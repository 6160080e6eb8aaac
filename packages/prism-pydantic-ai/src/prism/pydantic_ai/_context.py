"""One Prism call and its context from a pydantic-ai tool call."""

from __future__ import annotations

from typing import Any

from prism.core import CallScope, ToolCall, ToolExecutionContext
from pydantic_ai import RunContext

__all__ = ["prism_call"]


def prism_call(
    name: str, tool_args: dict[str, Any], ctx: RunContext[Any], scope: CallScope
) -> tuple[ToolCall, ToolExecutionContext]:
    """The ``ToolCall`` (pydantic-ai's call id) and the context (its run id, our session)."""
    call_id = ctx.tool_call_id or f"{name}-{ctx.run_step}"
    call = ToolCall(id=call_id, name=name, arguments=tool_args)
    return call, scope.context(call_id, ctx.run_id or "")
