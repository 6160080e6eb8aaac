"""``PrismToolset``: a Prism registry offered to a pydantic-ai agent, every call through Prism."""

from __future__ import annotations

from typing import Any

from pydantic_core import SchemaValidator, core_schema

from prism.core import AbortSignal, CallScope, ToolDefinition, ToolPipeline, ToolResult
from prism.core.options import check_count, check_instance
from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition as PydanticToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

from ._context import prism_call
from ._results import to_model_return

__all__ = ["PrismToolset"]

_ANY_ARGUMENTS = SchemaValidator(schema=core_schema.any_schema())
"""pydantic-ai checks nothing itself: Prism's pipeline validates the arguments."""
_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class PrismToolset(AbstractToolset[Any]):
    """The tools of ``pipeline.registry`` (after its filter), for ``Agent(toolsets=[...])``.

    Each call runs Prism's whole pipeline. Invalid arguments come back as a retry prompt while
    ``max_retries`` allows; refusals and errors reach the model as Prism's error text. Exclusive
    Prism tools are marked ``sequential``.
    """

    def __init__(
        self,
        pipeline: ToolPipeline,
        *,
        id: str | None = None,
        max_retries: int = 1,
        session_id: str = "",
        signal: AbortSignal | None = None,
    ) -> None:
        check_instance("PrismToolset.pipeline", pipeline, ToolPipeline)
        check_count("PrismToolset.max_retries", max_retries, cap=100, minimum=0)
        pipeline.visible_tools()  # fail now, not at the first model request, if it cannot list
        self.pipeline = pipeline
        self.max_retries = max_retries
        self.options = CallScope(session_id=session_id, signal=signal)
        self._id = id

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            tool.name: ToolsetTool(
                toolset=self,
                tool_def=_definition(tool),
                max_retries=self.max_retries,
                args_validator=_ANY_ARGUMENTS,
            )
            for tool in self.pipeline.visible_tools()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        result = await self.dispatch(name, tool_args, ctx)
        return to_model_return(result, ctx, tool.max_retries)

    async def dispatch(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]
    ) -> ToolResult:
        """Run one call through the pipeline and return Prism's result (before mapping)."""
        call, context = prism_call(name, tool_args, ctx, self.options)
        return await self.pipeline.dispatch(call, context)


def _definition(tool: ToolDefinition) -> PydanticToolDefinition:
    return PydanticToolDefinition(
        name=tool.name,
        description=tool.description,
        parameters_json_schema=dict(tool.parameters or _EMPTY_OBJECT),
        sequential=tool.exclusive,
    )
