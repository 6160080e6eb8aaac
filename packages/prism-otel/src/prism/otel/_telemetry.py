"""One span per tool call, and the call metrics, from Prism's event stream."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from opentelemetry import metrics, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from prism.core import Redactor, ToolLookup
from prism.core.events import (
    AgentEvent,
    ToolExecutionBlocked,
    ToolExecutionFailed,
    ToolExecutionFinished,
    ToolExecutionStarted,
)

from ._attributes import OPERATION, call_attributes, error_type, json_text, result_attributes
from ._framework import framework_tool_span
from ._instrument import TracedTools
from ._options import TelemetryOptions

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["ToolTelemetry"]

_SCOPE = "prism.otel"
SEMCONV_SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"
"""The semantic-conventions version the names follow (opentelemetry-semantic-conventions 0.66b2)."""
DURATION_METRIC = "gen_ai.client.operation.duration"
DURATION_BUCKETS = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
"""The GenAI conventions' explicit bucket advice for ``gen_ai.client.operation.duration`` (s)."""
_Key = tuple[str, str, str]
_Open = tuple[Span, bool]
"""An open call's span and whether Prism owns it (ends it) or enriches a framework's span."""


class ToolTelemetry:
    """An event sink that turns Prism's events into OpenTelemetry spans and metrics.

    Pass it as ``emit=`` to dispatch or the agent. Spans follow the GenAI conventions for tool
    execution (``execute_tool {name}``) and are children of the caller's current span; blocked
    calls are spans too. When the current span is a framework's own ``execute_tool`` span for
    the call (pydantic-ai, the Agents SDK through ``prism.otel.openai_agents``), Prism adds its
    attributes and status to that span instead of opening a second one, unless
    ``enrich_framework_spans=False``. ``instrument`` makes each call's span current while its
    handler runs.
    """

    __slots__ = ("_calls", "_duration", "_lock", "_open", "_redactor", "_tracer", "options")

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        redactor: Redactor | None = None,
        record_arguments: bool = False,
        record_results: bool = False,
        max_attribute_chars: int = 4096,
        max_open_spans: int = 10_000,
        enrich_framework_spans: bool = True,
    ) -> None:
        self.options = TelemetryOptions(
            record_arguments=record_arguments,
            record_results=record_results,
            max_attribute_chars=max_attribute_chars,
            max_open_spans=max_open_spans,
            enrich_framework_spans=enrich_framework_spans,
        )
        self._redactor = redactor
        self._tracer = trace.get_tracer(
            _SCOPE, tracer_provider=tracer_provider, schema_url=SEMCONV_SCHEMA_URL
        )
        meter = metrics.get_meter(
            _SCOPE, meter_provider=meter_provider, schema_url=SEMCONV_SCHEMA_URL
        )
        self._duration = meter.create_histogram(
            DURATION_METRIC,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self._calls = meter.create_counter(
            "prism.tool.calls", unit="{call}", description="Tool calls by outcome."
        )
        self._open: OrderedDict[_Key, list[_Open]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, event: AgentEvent) -> None:
        """Record ``event``; never raises into dispatch (core logs a raising sink anyway)."""
        if type(event) is ToolExecutionStarted:
            self._started(event)
        elif type(event) is ToolExecutionFinished:
            self._finished(event)
        elif type(event) is ToolExecutionFailed:
            self._failed(event)
        elif type(event) is ToolExecutionBlocked:
            self._blocked(event)

    def instrument(self, tools: ToolLookup) -> TracedTools:
        """``tools`` whose handlers run inside their call's span (their own spans nest in it)."""
        return TracedTools(tools, self)

    def current_span(self, session_id: str, run_id: str, call_id: str) -> Span | None:
        """The open span of a running call, if any (``instrument`` uses it)."""
        with self._lock:
            spans = self._open.get((session_id, run_id, call_id))
            return spans[0][0] if spans else None

    def _start(self, event: AgentEvent, start_time: int | None = None) -> _Open:
        attributes = call_attributes(event.call, event.session_id, event.run_id)
        span = framework_tool_span(event.call) if self.options.enrich_framework_spans else None
        owned = span is None
        if span is not None:
            span.set_attributes(attributes)
        else:
            span = self._tracer.start_span(
                f"{OPERATION} {event.call.name}",
                kind=SpanKind.INTERNAL,
                attributes=attributes,
                start_time=start_time,
            )
        if self.options.record_arguments and span.is_recording():
            arguments = event.call.arguments
            if self._redactor is not None:
                arguments = self._redactor.redact(arguments)
            limit = self.options.max_attribute_chars
            span.set_attribute("gen_ai.tool.call.arguments", json_text(arguments, limit))
        return span, owned

    def _started(self, event: ToolExecutionStarted) -> None:
        opened = self._start(event)
        if not opened[0].get_span_context().is_valid:
            return  # a no-op tracer: nothing to end later, nothing for handlers to nest under
        key = (event.session_id, event.run_id, event.call.id)
        evicted: list[_Open] = []
        with self._lock:
            self._open.setdefault(key, []).append(opened)
            while len(self._open) > self.options.max_open_spans:
                evicted.extend(self._open.popitem(last=False)[1])
        for stale, owned in evicted:
            stale.set_status(Status(StatusCode.ERROR, "no end was reported for this call"))
            stale.set_attribute("prism.outcome", "abandoned")
            if owned:
                stale.end()

    def _take(self, event: AgentEvent) -> _Open | None:
        key = (event.session_id, event.run_id, event.call.id)
        with self._lock:
            spans = self._open.get(key)
            if not spans:
                return None
            span = spans.pop(0)
            if not spans:
                del self._open[key]
            return span

    def _finished(self, event: ToolExecutionFinished) -> None:
        opened = self._take(event) or self._start(event, _start_ns(event.duration_seconds))
        result = event.result
        if self._redactor is not None and self.options.record_results:
            result = self._redactor.redact(result)
        limit = self.options.max_attribute_chars
        attributes = result_attributes(result, self.options.record_results, limit)
        outcome = "error" if result.error is not None else "finished"
        self._end(opened, event, outcome, attributes, None)

    def _failed(self, event: ToolExecutionFailed) -> None:
        opened = self._take(event) or self._start(event, _start_ns(event.duration_seconds))
        attributes: dict[str, str | bool] = {"error.type": error_type(event.error)}
        if event.error.code:
            attributes["prism.error.code"] = event.error.code
        self._end(opened, event, "error", attributes, event.error.message)

    def _blocked(self, event: ToolExecutionBlocked) -> None:
        opened = self._start(event, _start_ns(event.duration_seconds))
        attributes: dict[str, str | bool] = {
            "error.type": event.reason,
            "prism.blocked.reason": event.reason,
        }
        if event.reason == "permission_denied":
            attributes["prism.policy.decision"] = "denied"
        self._end(opened, event, "blocked", attributes, event.error.message)

    def _end(
        self,
        opened: _Open,
        event: ToolExecutionFinished | ToolExecutionFailed | ToolExecutionBlocked,
        outcome: str,
        attributes: dict[str, str | bool],
        message: str | None,
    ) -> None:
        if attributes.get("prism.error.code") == "execution_denied":
            attributes["prism.policy.decision"] = "denied"
        attributes["prism.outcome"] = outcome
        span, owned = opened
        if span.is_recording():
            span.set_attributes(attributes)
            if outcome != "finished":
                limit = self.options.max_attribute_chars
                description = None if message is None else json_text(message, limit)[1:-1]
                span.set_status(Status(StatusCode.ERROR, description))
        if owned:
            span.end()
        labels: dict[str, str] = {
            "gen_ai.operation.name": OPERATION,
            "gen_ai.tool.name": event.call.name,
            "prism.outcome": outcome,
        }
        if "error.type" in attributes:
            labels["error.type"] = str(attributes["error.type"])
        self._duration.record(event.duration_seconds, labels)
        self._calls.add(1, labels)


def _start_ns(duration_seconds: float) -> int:
    """The wall-clock start of a call that reports only its end and duration."""
    return time.time_ns() - int(max(0.0, duration_seconds) * 1e9)
