"""Make each call's span current while its handler runs, so the handler's own spans nest."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from typing import Any, Protocol

from opentelemetry import trace

from prism.core import ToolDefinition, ToolExecutionContext, ToolLookup

from ._attributes import tool_attributes

__all__ = ["SpanSource", "TracedTools"]

_CACHE_LIMIT = 4096


class SpanSource(Protocol):
    """Where a running call's span is found (``ToolTelemetry``): all this module needs of it,
    so it does not import the module that imports it."""

    def current_span(self, session_id: str, run_id: str, call_id: str) -> trace.Span | None:
        """The open span of this call, ``None`` when it has none."""
        ...


class TracedTools:
    """A tool lookup whose tools run inside their call's span; the inner lookup stays live.

    Works over any lookup (a ``ToolRegistry``, MCP tools that change while connected): each
    ``get`` wraps the inner tool (cached per definition, bounded).
    """

    __slots__ = ("_cache", "_inner", "_telemetry")

    def __init__(self, inner: ToolLookup, telemetry: SpanSource) -> None:
        self._inner = inner
        self._telemetry = telemetry
        self._cache: dict[int, tuple[ToolDefinition, ToolDefinition]] = {}

    def get(self, name: str) -> ToolDefinition | None:
        """The inner tool called ``name``, wrapped; ``None`` when there is none."""
        tool = self._inner.get(name)
        if tool is None:
            return None
        cached = self._cache.get(id(tool))
        if cached is not None and cached[0] is tool:
            return cached[1]
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        wrapped = _wrap(tool, self._telemetry)
        self._cache[id(tool)] = (tool, wrapped)
        return wrapped

    def list(self) -> tuple[ToolDefinition, ...]:
        """Every inner tool, wrapped (needs an inner lookup that can list)."""
        lister = getattr(self._inner, "list", None)
        if lister is None:
            raise TypeError(f"tool lookup {type(self._inner).__name__}: cannot list its tools")
        return tuple(t for t in (self.get(tool.name) for tool in lister()) if t is not None)

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self.list())


def _wrap(tool: ToolDefinition, telemetry: SpanSource) -> ToolDefinition:
    execute: Any = tool.execute
    extra = tool_attributes(tool.description, tool.metadata)

    def span_for(ctx: ToolExecutionContext) -> trace.Span | None:
        span = telemetry.current_span(ctx.session_id, ctx.run_id, ctx.tool_call_id)
        if span is not None and extra and span.is_recording():
            span.set_attributes(extra)
        return span

    if _is_async(execute):

        async def run_async(args: Any, ctx: ToolExecutionContext) -> Any:
            span = span_for(ctx)
            if span is None:
                return await execute(args, ctx)
            with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                return await execute(args, ctx)

        return dataclasses.replace(tool, execute=run_async)

    def run_sync(args: Any, ctx: ToolExecutionContext) -> Any:
        span = span_for(ctx)
        if span is None:
            return execute(args, ctx)
        with trace.use_span(span, record_exception=False, set_status_on_exception=False):
            return execute(args, ctx)

    return dataclasses.replace(tool, execute=run_sync)


def _is_async(execute: object) -> bool:
    return inspect.iscoroutinefunction(execute) or inspect.iscoroutinefunction(
        getattr(execute, "__call__", None)  # noqa: B004
    )
