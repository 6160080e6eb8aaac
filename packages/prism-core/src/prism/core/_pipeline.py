"""``ToolPipeline``: the registry and gates of ``dispatch_tool_call``, bundled once for reuse.

Framework integrations (pydantic-ai, the OpenAI Agents SDK, an MCP server) hold one pipeline and
send every call through it, so they take one typed object instead of restating the gates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._dispatch import dispatch_tool_call
from ._filter import ToolFilter, filter_tools, tool_allowed
from ._ledger import RunLedger
from ._middleware import MiddlewareRegistry
from ._permission import PermissionPolicy
from ._redact import Redactor
from ._registry import ToolLookup
from ._types import ToolCall, ToolDefinition, ToolExecutionContext, ToolResult
from ._validation import ToolValidator
from .events import EventSink

__all__ = ["ToolPipeline"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolPipeline:
    """Where tools come from and every gate a call passes, as ``dispatch_tool_call`` takes them.

    ``registry`` may be left out when each call names its own (gating another framework's tools).
    """

    registry: ToolLookup | None = None
    tool_filter: ToolFilter | Sequence[ToolFilter] | None = None
    middleware: MiddlewareRegistry | None = None
    permission: PermissionPolicy | None = None
    validate: ToolValidator | None = None
    emit: EventSink | None = None
    ledger: RunLedger | None = None
    redactor: Redactor | None = None
    max_argument_bytes: int = 1_048_576

    def __post_init__(self) -> None:
        if self.registry is not None and not callable(getattr(self.registry, "get", None)):
            raise TypeError("registry must have a get(name) method (see create_tool_registry)")

    def admits(self, name: str) -> bool:
        """Whether ``tool_filter`` lets a tool called ``name`` be offered and called."""
        return tool_allowed(name, self.tool_filter)

    def visible_tools(self) -> tuple[ToolDefinition, ...]:
        """The registry's tools that ``tool_filter`` admits: what a model should be offered."""
        lister = getattr(self.registry, "list", None)
        if lister is None:
            raise TypeError("this pipeline's registry cannot list its tools (it needs list())")
        return filter_tools(lister(), self.tool_filter)

    async def dispatch(
        self,
        call: ToolCall,
        context: ToolExecutionContext | None = None,
        *,
        registry: ToolLookup | None = None,
    ) -> ToolResult:
        """Run ``call`` through the pipeline (see ``dispatch_tool_call``); ``registry`` overrides
        the pipeline's own for this call."""
        lookup = registry if registry is not None else self.registry
        if lookup is None:
            raise TypeError("ToolPipeline.dispatch needs a registry: the pipeline has none")
        return await dispatch_tool_call(
            call,
            registry=lookup,
            context=context,
            tool_filter=self.tool_filter,
            middleware=self.middleware,
            permission=self.permission,
            validate=self.validate,
            emit=self.emit,
            ledger=self.ledger,
            redactor=self.redactor,
            max_argument_bytes=self.max_argument_bytes,
        )
