"""``prism_function_tools``: a Prism registry as Agents SDK ``FunctionTool``s."""

from __future__ import annotations

from typing import Any

from agents import FunctionTool, Tool
from agents.tool_context import ToolContext

from prism.core import AbortSignal, CallScope, ToolDefinition, ToolPipeline
from prism.core.options import check_instance

from ._context import prism_call
from ._lock import TurnLock
from ._results import to_model_output

__all__ = ["prism_function_tools"]

_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def prism_function_tools(
    pipeline: ToolPipeline, *, session_id: str = "", signal: AbortSignal | None = None
) -> list[Tool]:
    """One ``FunctionTool`` per tool of ``pipeline.registry`` that its filter admits.

    Typed ``list[Tool]`` so that ``Agent(tools=...)`` accepts it under mypy (``list`` is invariant).

    Each invocation runs Prism's whole pipeline; refusals and errors reach the model as Prism's
    error text. Exclusive tools run alone among calls made through the returned tools.
    Schemas are passed as they are (``strict_json_schema=False``): Prism validates arguments.
    """
    check_instance("prism_function_tools.pipeline", pipeline, ToolPipeline)
    options = CallScope(session_id=session_id, signal=signal)
    lock = TurnLock()
    return [_function_tool(tool, pipeline, options, lock) for tool in pipeline.visible_tools()]


def _function_tool(
    tool: ToolDefinition, pipeline: ToolPipeline, options: CallScope, lock: TurnLock
) -> FunctionTool:
    name, exclusive = tool.name, tool.exclusive

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        call, context = prism_call(name, arguments, ctx, pipeline, options)
        async with lock.hold(exclusive):
            result = await pipeline.dispatch(call, context)
        return to_model_output(result)

    return FunctionTool(
        name=name,
        description=tool.description or "",
        params_json_schema=dict(tool.parameters or _EMPTY_OBJECT),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=False,
    )
