"""``PrismGatedToolset``: Prism's gates around a pydantic-ai toolset the user already has."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prism.core import (
    AbortSignal,
    JsonObject,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolPipeline,
    ToolResult,
)
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from ._context import CallOptions, prism_call
from ._results import to_model_return, to_prism_value

__all__ = ["PrismGatedToolset"]

_CONTROL_FLOW = (ModelRetry, CallDeferred, ApprovalRequired)
"""pydantic-ai's own signals from inside a tool: they pass through Prism unchanged."""


@dataclass
class _Outcome:
    raw: object = None
    produced: object = None
    control: BaseException | None = None


class _OneTool:
    """A registry of the single tool being called."""

    __slots__ = ("tool",)

    def __init__(self, tool: ToolDefinition) -> None:
        self.tool = tool

    def get(self, name: str) -> ToolDefinition | None:
        return self.tool if name == self.tool.name else None


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
    _options: CallOptions = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.wrapped, AbstractToolset):
            raise ValueError(f"wrapped: expected a pydantic-ai toolset, got {self.wrapped!r}")
        if not isinstance(self.pipeline, ToolPipeline):
            raise ValueError(f"pipeline: expected a ToolPipeline, got {self.pipeline!r}")
        self._options = CallOptions(session_id=self.session_id, signal=self.signal)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = await self.wrapped.get_tools(ctx)
        return {name: tool for name, tool in tools.items() if self.pipeline.admits(name)}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        outcome = _Outcome()
        definition = _prism_tool(self.wrapped, name, ctx, tool, outcome)
        call, context = prism_call(name, tool_args, ctx, self._options)
        result = await self.pipeline.dispatch(call, context, registry=_OneTool(definition))
        if outcome.control is not None:
            raise outcome.control
        if result.error is None and _untouched(result, outcome.produced):
            return outcome.raw
        return to_model_return(result, ctx, tool.max_retries)


def _prism_tool(
    wrapped: AbstractToolset[Any],
    name: str,
    ctx: RunContext[Any],
    tool: ToolsetTool[Any],
    outcome: _Outcome,
) -> ToolDefinition:
    async def execute(args: JsonObject, _: ToolExecutionContext) -> Any:
        try:
            raw = await wrapped.call_tool(name, dict(args), ctx, tool)
        except _CONTROL_FLOW as signal:
            outcome.control = signal
            raise
        outcome.raw = raw
        outcome.produced = to_prism_value(raw)
        return outcome.produced

    return ToolDefinition(
        name=name,
        execute=execute,
        description=tool.tool_def.description,
        parameters=tool.tool_def.parameters_json_schema,
        exclusive=tool.tool_def.sequential,
    )


def _untouched(result: ToolResult, produced: object) -> bool:
    """Whether Prism handed back exactly what the tool produced (no redaction, no middleware)."""
    if isinstance(produced, str):
        content = result.content
        return (
            len(content) == 1
            and isinstance(content[0], TextContent)
            and content[0].text is produced
        )
    if produced is None:
        return not result.content and result.value is None
    return not result.content and result.value is produced
