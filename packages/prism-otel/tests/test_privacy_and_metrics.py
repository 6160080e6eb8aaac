"""Arguments and results stay out of telemetry unless the host opts in; then they are redacted."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from prism.core import (
    SecretRedactor,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.otel import TelemetryOptions, ToolTelemetry

from .conftest import Otel

pytestmark = pytest.mark.anyio

SECRET = "sk-live-4f9a8b7c6d5e"


async def leak(args: Any, ctx: ToolExecutionContext) -> str:
    return f"token is {args['token']} and {SECRET}"


def _exported_text(otel: Otel) -> str:
    parts: list[str] = []
    for span in otel.spans():
        parts.append(span.name)
        parts.extend(f"{k}={v}" for k, v in (span.attributes or {}).items())
        parts.append(span.status.description or "")
        for event in span.events:
            parts.extend(f"{k}={v}" for k, v in (event.attributes or {}).items())
    return "\n".join(parts)


async def _run(otel: Otel, telemetry: ToolTelemetry) -> None:
    registry = ToolRegistry([ToolDefinition(name="leak", execute=leak)])
    calls = [ToolCall(id="s", name="leak", arguments={"token": SECRET})]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(calls, registry=registry, emit=telemetry)


async def test_arguments_and_results_are_not_recorded_by_default(otel: Otel) -> None:
    telemetry = ToolTelemetry(
        tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider
    )
    await _run(otel, telemetry)
    text = _exported_text(otel)
    assert SECRET not in text
    assert "gen_ai.tool.call.arguments" not in text
    assert "gen_ai.tool.call.result" not in text


async def test_opted_in_arguments_and_results_are_redacted_first(otel: Otel) -> None:
    telemetry = ToolTelemetry(
        tracer_provider=otel.tracer_provider,
        meter_provider=otel.meter_provider,
        redactor=SecretRedactor([SECRET]),
        record_arguments=True,
        record_results=True,
    )
    await _run(otel, telemetry)
    [span] = otel.tool_spans()
    attributes = dict(span.attributes or {})
    assert "[REDACTED]" in str(attributes["gen_ai.tool.call.arguments"])
    assert "token is [REDACTED]" in str(attributes["gen_ai.tool.call.result"])
    assert SECRET not in _exported_text(otel)


async def test_recorded_values_are_cut_to_the_attribute_bound(otel: Otel) -> None:
    telemetry = ToolTelemetry(
        tracer_provider=otel.tracer_provider,
        meter_provider=otel.meter_provider,
        record_arguments=True,
        max_attribute_chars=64,
    )
    registry = ToolRegistry([ToolDefinition(name="leak", execute=leak)])
    calls = [ToolCall(id="b", name="leak", arguments={"token": "x" * 10_000})]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(calls, registry=registry, emit=telemetry)
    value = str(dict(otel.tool_spans()[0].attributes or {})["gen_ai.tool.call.arguments"])
    assert len(value) <= 64
    assert value.endswith("[truncated]")


async def test_metrics_count_calls_by_outcome_and_record_duration(otel: Otel) -> None:
    telemetry = ToolTelemetry(
        tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider
    )
    registry = ToolRegistry([ToolDefinition(name="leak", execute=leak)])
    calls = [
        ToolCall(id="1", name="leak", arguments={"token": "a"}),
        ToolCall(id="2", name="leak", arguments={"token": "b"}),
        ToolCall(id="3", name="nope", arguments={}),
    ]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(calls, registry=registry, emit=telemetry)
    counts = {
        (dict(p.attributes)["prism.outcome"], dict(p.attributes).get("error.type")): p.value  # type: ignore[attr-defined]
        for p in otel.metric_points("prism.tool.calls")
    }
    assert counts == {("finished", None): 2, ("blocked", "unknown_tool"): 1}
    durations = otel.metric_points("gen_ai.client.operation.duration")
    assert sum(p.count for p in durations) == 3  # type: ignore[attr-defined]


async def test_without_an_sdk_the_sink_is_a_harmless_no_op() -> None:
    telemetry = ToolTelemetry()  # the global providers: no SDK installed by this test
    registry = ToolRegistry([ToolDefinition(name="leak", execute=leak)])
    calls = [ToolCall(id="n", name="leak", arguments={"token": "t"})]
    with anyio.fail_after(scaled(10)):
        results = await dispatch_tool_calls_in_order(
            calls, registry=telemetry.instrument(registry), emit=telemetry
        )
    assert results[0].error is None
    assert telemetry.current_span("", "", "n") is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_attribute_chars", 0),
        ("max_attribute_chars", True),
        ("max_open_spans", 0),
        ("max_open_spans", 10**9),
        ("record_arguments", "yes"),
    ],
)
def test_options_out_of_bounds_are_refused_by_name(field: str, value: object) -> None:
    error = ValueError if type(value) is int else TypeError  # a wrong type is a TypeError
    with pytest.raises(error, match=rf"^TelemetryOptions\.{field} must be"):
        TelemetryOptions(**{field: value})  # type: ignore[arg-type]
