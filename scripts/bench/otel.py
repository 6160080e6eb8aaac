"""prism-otel overhead: one dispatch of a no-op tool without telemetry, with the no-op API,
and with the real SDK exporting to memory, measured side by side in one run.

Usage: uv run python scripts/bench/otel.py [--calls N] [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

from _common import fmt_ratio, fmt_us, interleaved_async, machine_line, markdown_table, median
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from prism.core import ToolCall, ToolDefinition, create_tool_registry, dispatch_tool_call
from prism.otel import ToolTelemetry


async def noop(args: Any, ctx: Any) -> str:
    return "ok"


def _subject(telemetry: ToolTelemetry | None, n: int) -> Callable[[], Awaitable[float]]:
    registry = create_tool_registry([ToolDefinition(name="noop", execute=noop)])
    lookup = registry if telemetry is None else telemetry.instrument(registry)
    call = ToolCall(id="c", name="noop", arguments={"x": 1})

    async def batch() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        for _ in range(n):
            await dispatch_tool_call(call, registry=lookup, emit=telemetry)
        return (loop.time() - start) / n

    return batch


def _sdk() -> tuple[ToolTelemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry = ToolTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
    return telemetry, exporter


async def run(calls: int, repeats: int) -> str:
    sdk, exporter = _sdk()
    subjects = {
        "dispatch, no telemetry": _subject(None, calls),
        "dispatch + ToolTelemetry, no-op API": _subject(ToolTelemetry(), calls),
        "dispatch + ToolTelemetry, SDK in-memory": _subject(sdk, calls),
    }
    for batch in subjects.values():
        await batch()  # warm-up
    exporter.clear()
    figures = {name: median(v) for name, v in (await interleaved_async(subjects, repeats)).items()}
    base = figures["dispatch, no telemetry"]
    rows = [[name, fmt_us(value), fmt_ratio(value / base)] for name, value in figures.items()]
    table = markdown_table(["subject", "µs/call (median)", "÷ no telemetry"], rows)
    load = os.getloadavg()[0]
    return f"{machine_line()}, load {load:.2f}\n\n{table}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(asyncio.run(run(args.calls, args.repeats)))


if __name__ == "__main__":
    main()
