"""prism-otel overhead: one dispatch of a no-op tool without telemetry, with the no-op API,
and with the real SDK exporting to memory, measured side by side in one run.

Run: ``uv run python scripts/bench/otel.py [--quick] [--calls N] [--repeats R]``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import (
    Batch,
    baseline_table,
    bench_parser,
    header,
    measure_async,
    time_async_calls,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from prism.core import ToolCall, ToolDefinition, ToolRegistry, dispatch_tool_call
from prism.otel import ToolTelemetry

COMMAND = "uv run python scripts/bench/otel.py"
BASE = "dispatch, no telemetry"


async def noop(args: Any, ctx: Any) -> str:
    return "ok"


def _subject(telemetry: ToolTelemetry | None, n: int) -> Batch:
    registry = ToolRegistry([ToolDefinition(name="noop", execute=noop)])
    lookup = registry if telemetry is None else telemetry.instrument(registry)
    call = ToolCall(id="c", name="noop", arguments={"x": 1})

    async def batch() -> float:
        return await time_async_calls(
            lambda: dispatch_tool_call(call, registry=lookup, emit=telemetry), n
        )

    return batch


def _sdk() -> tuple[ToolTelemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry = ToolTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
    return telemetry, exporter


async def run(calls: int, repeats: int) -> str:
    """The overhead table: µs per call (median, best batch), each ÷ no telemetry."""
    sdk, exporter = _sdk()
    subjects = {
        BASE: _subject(None, calls),
        "dispatch + ToolTelemetry, no-op API": _subject(ToolTelemetry(), calls),
        "dispatch + ToolTelemetry, SDK in-memory": _subject(sdk, calls),
    }
    figures = await measure_async(subjects, repeats)
    exporter.clear()
    return baseline_table(figures, BASE, "subject")


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--calls", type=int, default=None, help="calls per batch (2000)")
    parser.add_argument("--repeats", type=int, default=None, help="timed batches (7)")
    args = parser.parse_args()
    calls = args.calls or (300 if args.quick else 2000)
    repeats = args.repeats or (3 if args.quick else 7)
    table = asyncio.run(run(calls, repeats))
    print(header(f"{COMMAND} --calls {calls} --repeats {repeats}") + "\n" + table)


if __name__ == "__main__":
    main()
