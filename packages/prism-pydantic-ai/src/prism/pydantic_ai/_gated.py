"""``PrismGatedToolset``: Prism's gates around a pydantic-ai toolset the user already has."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prism.core import AbortSignal, CallScope, JsonObject, ToolPipeline
from prism.core.options import check_instance
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from ._context import prism_call
from ._results import to_model_return, to_prism_value

__all__ = ["PrismGatedToolset"]

_CONTROL_FLOW = (ModelRetry, CallDeferred, ApprovalRequired)
"""pydantic-ai's own signals from inside a tool: they pass through Prism unchanged."""


@dataclass
class PrismGatedToolset(WrapperToolset[Any]):
    """``wrapped``'s tools, each call first through ``pipeline``'s gates (its registry unused).

    The tool's own return value reaches the model unchanged unless Prism changed it (redaction,
    ``tool_result`` middleware); then the model sees Prism's version. ``ModelRetry``,
    ``CallDeferred`` and ``ApprovalRequired`` raised by the tool keep their pydantic-ai meaning.
    """

    pipeline: ToolPipeline = field(default_factory=ToolPipeline)
    session_id: str = ""
    signal: AbortSignal | None = None
    _options: CallScope = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_instance("PrismGatedToolset.wrapped", self.wrapped, AbstractToolset)
        check_instance("PrismGatedToolset.pipeline", self.pipeline, ToolPipeline)
        self._options = CallScope(session_id=self.session_id, signal=self.signal)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = await self.wrapped.get_tools(ctx)
        return {name: tool for name, tool in tools.items() if self.pipeline.admits(name)}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        async def invoke(arguments: JsonObject) -> object:
            return await self.wrapped.call_tool(name, dict(arguments), ctx, tool)

        call, context = prism_call(name, tool_args, ctx, self._options)
        outcome = await self.pipeline.dispatch_external(
            call,
            invoke,
            context=context,
            description=tool.tool_def.description,
            parameters=tool.tool_def.parameters_json_schema,
            exclusive=tool.tool_def.sequential,
            convert=to_prism_value,
            passthrough=_CONTROL_FLOW,
        )
        if outcome.unchanged:
            return outcome.raw
        return to_model_return(outcome.result, ctx, tool.max_retries)
