"""``gate_function_tool``: Prism's gates around an Agents SDK tool the user already has."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from agents import FunctionTool
from agents.exceptions import AgentsException
from agents.tool_context import ToolContext

from prism.core import AbortSignal, CallScope, JsonObject, ToolPipeline
from prism.core.options import check_instance

from ._context import prism_call
from ._results import to_model_output

__all__ = ["gate_function_tool"]


def gate_function_tool(
    tool: FunctionTool,
    pipeline: ToolPipeline,
    *,
    session_id: str = "",
    signal: AbortSignal | None = None,
) -> FunctionTool:
    """A copy of ``tool`` whose every call first passes ``pipeline``'s gates (registry unused).

    The tool's own output reaches the model unchanged unless Prism changed it (redaction,
    ``tool_result`` middleware). The SDK's own exceptions (``AgentsException``) keep their
    meaning; everything else the tool raises becomes Prism's error text for the model.
    """
    check_instance("gate_function_tool.tool", tool, FunctionTool)
    check_instance("gate_function_tool.pipeline", pipeline, ToolPipeline)
    options = CallScope(session_id=session_id, signal=signal)
    inner = tool.on_invoke_tool

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        async def invoke(decoded: JsonObject) -> object:
            return await inner(ctx, json.dumps(decoded, ensure_ascii=False))

        call, context = prism_call(tool.name, arguments, ctx, pipeline, options)
        outcome = await pipeline.dispatch_external(
            call,
            invoke,
            context=context,
            description=tool.description,
            parameters=tool.params_json_schema,
            passthrough=(AgentsException,),
        )
        return outcome.raw if outcome.unchanged else to_model_output(outcome.result)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)
