"""The OpenAI Agents SDK's traces as OpenTelemetry spans, current while they run."""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextvars import Token
from typing import Any

from agents.tracing import Span as AgentsSpan
from agents.tracing import Trace, TracingProcessor
from agents.tracing.span_data import (
    AgentSpanData,
    FunctionSpanData,
    GenerationSpanData,
    ResponseSpanData,
)
from opentelemetry import context, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from prism.core.options import check_count

from ._telemetry import SEMCONV_SCHEMA_URL

__all__ = ["OpenAIAgentsBridge"]

_SCOPE = "prism.otel.openai_agents"
_Entry = tuple[Span, Token[context.Context]]
"""A mirrored span and the token that made it current."""


class OpenAIAgentsBridge(TracingProcessor):
    """An Agents SDK tracing processor that mirrors each trace and span as an OTel span.

    Register it with ``agents.add_trace_processor`` (or ``set_trace_processors``). Each mirrored
    span is *current* in the OpenTelemetry context while the SDK's span is, so spans opened
    inside an agent run (Prism's tool telemetry, an HTTP client) nest under the agent's span.
    Function spans are named ``execute_tool {name}`` with the GenAI attributes, so
    ``ToolTelemetry`` enriches them instead of opening a second span per call. A span is made
    current where the SDK starts it and stops being current where the SDK ends it, which the
    SDK does in one context and in nesting order (as it does for its own current span).
    """

    def __init__(
        self, *, tracer_provider: trace.TracerProvider | None = None, max_open_spans: int = 10_000
    ) -> None:
        check_count("OpenAIAgentsBridge.max_open_spans", max_open_spans, cap=1_000_000)
        self._tracer = trace.get_tracer(
            _SCOPE, tracer_provider=tracer_provider, schema_url=SEMCONV_SCHEMA_URL
        )
        self._max_open = max_open_spans
        self._open: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def on_trace_start(self, trace: Trace) -> None:
        """Open the workflow's span under the caller's current span."""
        self._start(trace.trace_id, trace.name, {"openai_agents.trace.id": trace.trace_id}, None)

    def on_trace_end(self, trace: Trace) -> None:
        """End the workflow's span."""
        self._end(trace.trace_id, None)

    def on_span_start(self, span: AgentsSpan[Any]) -> None:
        """Open the span under its SDK parent's mirror (or the trace's)."""
        name, attributes = _describe(span.span_data)
        self._start(span.span_id, name, attributes, span.parent_id or span.trace_id)

    def on_span_end(self, span: AgentsSpan[Any]) -> None:
        """End the span; an SDK error becomes status ``ERROR`` with its message."""
        data = span.span_data
        with self._lock:
            entry = self._open.get(span.span_id)
        if entry is not None and isinstance(data, ResponseSpanData) and data.response is not None:
            model = getattr(data.response, "model", None)
            if isinstance(model, str):
                entry[0].set_attribute("gen_ai.response.model", model)
        error = span.error
        self._end(span.span_id, None if error is None else str(error.get("message") or "error"))

    def shutdown(self) -> None:
        """End every span still open."""
        with self._lock:
            entries = list(self._open.values())
            self._open.clear()
        for span, _token in entries:
            span.end()

    def force_flush(self) -> None:
        """Nothing is buffered here; the OTel span processors flush themselves."""

    def _start(self, key: str, name: str, attributes: dict[str, str], parent: str | None) -> None:
        with self._lock:
            parent_entry = None if parent is None else self._open.get(parent)
        parent_context = (
            None if parent_entry is None else trace.set_span_in_context(parent_entry[0])
        )
        kind = SpanKind.CLIENT if attributes.get("gen_ai.operation.name") == "chat" else None
        span = self._tracer.start_span(
            name, context=parent_context, kind=kind or SpanKind.INTERNAL, attributes=attributes
        )
        token = context.attach(trace.set_span_in_context(span))
        evicted: list[_Entry] = []
        with self._lock:
            self._open[key] = (span, token)
            while len(self._open) > self._max_open:
                evicted.append(self._open.popitem(last=False)[1])
        for stale, _token in evicted:
            stale.set_status(Status(StatusCode.ERROR, "no end was reported for this span"))
            stale.end()

    def _end(self, key: str, error: str | None) -> None:
        with self._lock:
            entry = self._open.pop(key, None)
        if entry is None:
            return
        span, token = entry
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end()
        if trace.get_current_span() is span:
            context.detach(token)


def _describe(data: object) -> tuple[str, dict[str, str]]:
    """A span name and GenAI attributes for one kind of SDK span."""
    kind = str(getattr(data, "type", "span"))
    attributes = {"openai_agents.span.type": kind}
    if isinstance(data, AgentSpanData):
        attributes |= {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": data.name}
        return f"invoke_agent {data.name}", attributes
    if isinstance(data, FunctionSpanData):
        attributes |= {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": data.name,
            "gen_ai.tool.type": "extension" if data.mcp_data else "function",
        }
        return f"execute_tool {data.name}", attributes
    if isinstance(data, GenerationSpanData | ResponseSpanData):
        attributes["gen_ai.operation.name"] = "chat"
        model = getattr(data, "model", None)
        if isinstance(model, str):
            attributes["gen_ai.request.model"] = model
            return f"chat {model}", attributes
        return "chat", attributes
    name = getattr(data, "name", None)
    return (f"{kind} {name}" if isinstance(name, str) else kind), attributes
