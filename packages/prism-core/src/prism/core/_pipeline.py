"""``ToolPipeline``: the registry and gates of ``dispatch_tool_call``, bundled once for reuse.

Framework integrations (pydantic-ai, the OpenAI Agents SDK, an MCP server) hold one pipeline and
send every call through it, so they take one typed object instead of restating the gates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ._abort import NEVER_ABORTED, AbortSignal
from ._dispatch import run_dispatch
from ._dispatch_options import DispatchOptions, check_context
from ._filter import filter_tools, tool_allowed
from ._gates import NO_GATES, ToolGates
from ._registry import ToolLookup
from ._types import JsonObject, ToolCall, ToolDefinition, ToolExecutionContext, ToolResult
from .events import EventSink
from .options import check_callable, check_instance

__all__ = ["CallScope", "ExternalOutcome", "ToolPipeline"]

ExternalInvoke = Callable[[JsonObject], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class ExternalOutcome:
    """How a call to another framework's tool went through ``ToolPipeline.dispatch_external``.

    ``result`` is Prism's result; ``raw`` what the tool itself returned (``None`` if it never
    ran); ``unchanged`` is true when the call finished and Prism handed back exactly what the
    tool produced (no redaction or middleware changed it), so the raw value may be used as is.
    """

    result: ToolResult
    raw: object
    unchanged: bool


def _plain(raw: object) -> object:
    """A foreign return value as something a Prism handler may return (JSON types, else text)."""
    if raw is None or isinstance(raw, (str, bool, int, float, dict, list)):
        return raw
    return str(raw)


@dataclass(slots=True)
class _Capture:
    raw: object = None
    produced: object = None
    control: BaseException | None = None


class _OneTool:
    __slots__ = ("tool",)

    def __init__(self, tool: ToolDefinition) -> None:
        self.tool = tool

    def get(self, name: str) -> ToolDefinition | None:
        return self.tool if name == self.tool.name else None


def _unchanged(result: ToolResult, produced: object) -> bool:
    if result.error is not None:
        return False
    if isinstance(produced, str):
        content = result.content
        return len(content) == 1 and getattr(content[0], "text", None) is produced
    if produced is None:
        return not result.content and result.value is None
    return not result.content and result.value is produced


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolPipeline:
    """Where tools come from, the gates every call passes and where its events go: what
    ``dispatch_tool_call`` takes, held once. ``registry`` may be left out when each call names
    its own (gating another framework's tools)."""

    registry: ToolLookup | None = None
    gates: ToolGates = NO_GATES
    emit: EventSink | None = None
    _held: DispatchOptions | None = field(init=False, default=None, repr=False, compare=False)
    """The fields above as dispatch takes them, checked once here rather than on every call."""

    def __post_init__(self) -> None:
        if self.registry is not None and not callable(getattr(self.registry, "get", None)):
            raise TypeError(
                "ToolPipeline.registry must be a ToolLookup with get(name) or None, got "
                f"{self.registry!r:.200}"
            )
        if not isinstance(self.gates, ToolGates):
            raise TypeError(f"ToolPipeline.gates must be a ToolGates, got {self.gates!r:.200}")
        check_callable("ToolPipeline.emit", self.emit, optional=True)
        if self.registry is not None:
            object.__setattr__(self, "_held", self._options(self.registry))

    def _options(self, registry: ToolLookup) -> DispatchOptions:
        return DispatchOptions.held(registry, self.gates, self.emit)

    def admits(self, name: str) -> bool:
        """Whether ``tool_filter`` lets a tool called ``name`` be offered and called."""
        return tool_allowed(name, self.gates.tool_filter)

    def visible_tools(self) -> tuple[ToolDefinition, ...]:
        """The registry's tools that ``tool_filter`` admits: what a model should be offered."""
        lister = getattr(self.registry, "list", None)
        if lister is None:
            raise TypeError(
                "ToolPipeline.registry must be a registry with list() to list tools, got "
                f"{self.registry!r:.200}"
            )
        return filter_tools(lister(), self.gates.tool_filter)

    async def dispatch(
        self,
        call: ToolCall,
        context: ToolExecutionContext | None = None,
        *,
        registry: ToolLookup | None = None,
    ) -> ToolResult:
        """Run ``call`` through the pipeline (see ``dispatch_tool_call``); ``registry`` overrides
        the pipeline's own for this call."""
        options = self._held if registry is None else self._options(registry)
        if options is None:
            raise TypeError(
                "ToolPipeline.dispatch.registry must be a ToolLookup when the pipeline has none, "
                "got None"
            )
        if context is not None and type(context) is not ToolExecutionContext:
            check_context(context)
        return await run_dispatch(call, options, options.reporter(context), context)

    async def dispatch_external(
        self,
        call: ToolCall,
        invoke: ExternalInvoke,
        *,
        context: ToolExecutionContext | None = None,
        description: str | None = None,
        parameters: JsonObject | None = None,
        exclusive: bool = False,
        convert: Callable[[object], object] = _plain,
        passthrough: tuple[type[BaseException], ...] = (),
    ) -> ExternalOutcome:
        """Run another framework's tool (``invoke(arguments)``) behind this pipeline's gates.

        ``convert`` turns its return value into what a Prism handler returns (default: JSON
        types as they are, anything else as text). Exceptions of a ``passthrough`` type are
        recorded as the call's error, then re-raised, so a framework's own control flow
        (retry requests, deferrals) keeps its meaning.
        """
        capture = _Capture()

        async def execute(arguments: JsonObject, ctx: ToolExecutionContext) -> Any:
            try:
                capture.raw = await invoke(arguments)
            except passthrough as signal:
                capture.control = signal
                raise
            capture.produced = convert(capture.raw)
            return capture.produced

        tool = ToolDefinition(
            name=call.name, execute=execute, description=description,
            parameters=parameters, exclusive=exclusive,
        )  # fmt: skip
        result = await self.dispatch(call, context, registry=_OneTool(tool))
        if capture.control is not None:
            raise capture.control
        return ExternalOutcome(result, capture.raw, _unchanged(result, capture.produced))


@dataclass(frozen=True, slots=True, kw_only=True)
class CallScope:
    """What every call an integration makes shares: Prism's session id and the host's abort
    signal. ``context`` builds each call's ``ToolExecutionContext``."""

    session_id: str = ""
    signal: AbortSignal | None = None

    def __post_init__(self) -> None:
        check_instance("CallScope.session_id", self.session_id, str)
        check_instance("CallScope.signal", self.signal, AbortSignal, optional=True)

    def context(self, call_id: str, run_id: str = "") -> ToolExecutionContext:
        """The context of one call made in this scope."""
        signal = self.signal if self.signal is not None else NEVER_ABORTED
        return ToolExecutionContext(
            session_id=self.session_id, run_id=run_id, tool_call_id=call_id, signal=signal
        )
