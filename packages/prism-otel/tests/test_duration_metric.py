"""The duration histogram is the GenAI conventions' ``gen_ai.client.operation.duration``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from opentelemetry.sdk.metrics.export import Histogram, HistogramDataPoint
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.schemas import Schemas

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.otel import ToolTelemetry

from .conftest import Otel

pytestmark = pytest.mark.anyio

ADVISED_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48)
ADVISED_BUCKETS += (40.96, 81.92)


async def quick(args: Any, ctx: ToolExecutionContext) -> str:
    return "ok"


def _histogram(otel: Otel) -> tuple[Histogram, str | None, str]:
    data = otel.metrics_reader.get_metrics_data()
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION:
                    assert isinstance(metric.data, Histogram)
                    return metric.data, scope.schema_url, metric.unit or ""
    raise AssertionError("no gen_ai.client.operation.duration histogram was exported")


async def test_tool_calls_record_the_client_operation_duration_with_advised_buckets(
    otel: Otel,
) -> None:
    telemetry = ToolTelemetry(
        tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider
    )
    registry = ToolRegistry([ToolDefinition(name="quick", execute=quick)])
    calls = [
        ToolCall(id="1", name="quick", arguments={}),
        ToolCall(id="2", name="missing", arguments={}),
    ]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(calls, registry=registry, emit=telemetry)
    histogram, schema_url, unit = _histogram(otel)
    assert unit == "s"
    assert schema_url == Schemas.V1_44_0.value
    points: list[HistogramDataPoint] = list(histogram.data_points)
    assert sum(p.count for p in points) == 2
    for point in points:
        assert tuple(point.explicit_bounds) == ADVISED_BUCKETS
        attributes = dict(point.attributes or {})
        operation = gen_ai_attributes.GenAiOperationNameValues.EXECUTE_TOOL.value
        assert attributes[gen_ai_attributes.GEN_AI_OPERATION_NAME] == operation
    finished = next(p for p in points if dict(p.attributes or {})["prism.outcome"] == "finished")
    assert 0 <= finished.max < scaled(5)  # seconds, not milliseconds
    assert len(finished.bucket_counts) == len(ADVISED_BUCKETS) + 1


def test_the_names_match_the_installed_semantic_conventions() -> None:
    from prism.otel import _telemetry

    assert _telemetry.DURATION_METRIC == gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION
    assert max(Schemas, key=_version).value == _telemetry.SEMCONV_SCHEMA_URL
    assert _telemetry.DURATION_BUCKETS == ADVISED_BUCKETS


def _version(schema: Schemas) -> tuple[int, ...]:
    return tuple(int(part) for part in schema.value.rsplit("/", 1)[1].split("."))
