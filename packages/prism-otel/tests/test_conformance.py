"""prism-core's threat rows with telemetry attached: recording spans never changes a verdict.

The dispatch subjects send every event to a real ``ToolTelemetry`` (SDK, in-memory exporter)
and to the row's own sink, and run tools through ``instrument``; the rows must all still pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from prism.conformance import ConformanceSubjects, default_subjects, make_conformance_tests
from prism.core import (
    ToolCall,
    ToolLookup,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.events import AgentEvent, EventSink
from prism.otel import ToolTelemetry

test_conformance = make_conformance_tests(package="prism-core")


def _tee(telemetry: ToolTelemetry, sink: EventSink | None) -> EventSink:
    def emit(event: AgentEvent) -> Any:
        telemetry(event)
        return None if sink is None else sink(event)

    return emit


@pytest.fixture
def prism_conformance_subjects() -> Iterator[ConformanceSubjects]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = ToolTelemetry(tracer_provider=provider)

    async def dispatch(
        call: ToolCall, *, registry: ToolLookup, emit: EventSink | None = None, **options: Any
    ) -> ToolResult:
        return await dispatch_tool_call(
            call, registry=telemetry.instrument(registry), emit=_tee(telemetry, emit), **options
        )

    async def dispatch_batch(
        calls: Any, *, registry: ToolLookup, emit: EventSink | None = None, **options: Any
    ) -> tuple[ToolResult, ...]:
        return await dispatch_tool_calls_in_order(
            calls, registry=telemetry.instrument(registry), emit=_tee(telemetry, emit), **options
        )

    yield dataclasses.replace(default_subjects(), dispatch=dispatch, dispatch_batch=dispatch_batch)
    provider.shutdown()
