"""Every tool call becomes one span that follows the GenAI conventions, on both backends."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest
from opentelemetry.trace import SpanKind, StatusCode

from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.otel import ToolTelemetry

from .conftest import Otel

pytestmark = pytest.mark.anyio


def _telemetry(otel: Otel, **options: Any) -> ToolTelemetry:
    return ToolTelemetry(
        tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider, **options
    )


async def echo(args: Any, ctx: ToolExecutionContext) -> str:
    return f"echo {args.get('text', '')}"


async def test_a_finished_call_is_one_execute_tool_span_under_the_callers_span(otel: Otel) -> None:
    telemetry = _telemetry(otel)
    registry = ToolRegistry([ToolDefinition(name="echo", execute=echo)])
    tracer = otel.tracer_provider.get_tracer("host")
    with tracer.start_as_current_span("invoke_agent host") as parent:
        with anyio.fail_after(scaled(10)):
            await dispatch_tool_call(
                ToolCall(id="c1", name="echo", arguments={"text": "hi"}),
                registry=registry,
                emit=telemetry,
            )
    [span] = otel.tool_spans()
    assert span.name == "execute_tool echo"
    assert span.kind is SpanKind.INTERNAL
    assert span.parent is not None
    assert span.parent.span_id == parent.get_span_context().span_id
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "echo"
    assert attributes["gen_ai.tool.call.id"] == "c1"
    assert attributes["gen_ai.tool.type"] == "function"
    assert attributes["prism.outcome"] == "finished"
    assert "error.type" not in attributes
    assert span.status.status_code is StatusCode.UNSET


async def test_handler_spans_nest_under_the_tool_span_when_tools_are_instrumented(
    otel: Otel,
) -> None:
    telemetry = _telemetry(otel)
    tracer = otel.tracer_provider.get_tracer("tool")

    async def fetch(args: Any, ctx: ToolExecutionContext) -> str:
        with tracer.start_as_current_span("http GET"):
            await anyio.lowlevel.checkpoint()
        return "ok"

    def compute(args: Any, ctx: ToolExecutionContext) -> str:
        with tracer.start_as_current_span("compute inner"):
            return "done"

    registry = ToolRegistry(
        [
            ToolDefinition(name="fetch", execute=fetch),
            ToolDefinition(name="compute", execute=compute),
        ]
    )
    calls = [
        ToolCall(id="a", name="fetch", arguments={}),
        ToolCall(id="b", name="compute", arguments={}),
    ]
    with anyio.fail_after(scaled(10)):
        results = await dispatch_tool_calls_in_order(
            calls, tool_concurrency=2, registry=telemetry.instrument(registry), emit=telemetry
        )
    assert [r.error for r in results] == [None, None]
    by_name = {s.name: s for s in otel.spans()}
    for inner, outer in (
        ("http GET", "execute_tool fetch"),
        ("compute inner", "execute_tool compute"),
    ):
        parent = by_name[inner].parent
        assert parent is not None
        assert parent.span_id == by_name[outer].context.span_id


async def test_blocked_calls_are_spans_with_their_reason(otel: Otel) -> None:
    telemetry = _telemetry(otel)
    registry = ToolRegistry(
        [ToolDefinition(name="echo", execute=echo), ToolDefinition(name="rm", execute=echo)]
    )
    calls = [
        ToolCall(id="1", name="missing", arguments={}),
        ToolCall(id="2", name="rm", arguments={}),
    ]
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_calls_in_order(
            calls,
            registry=registry,
            emit=telemetry,
            gates=ToolGates(permission=create_static_permission_policy(deny=["tool:rm:*"])),
        )
    spans = {dict(s.attributes or {})["gen_ai.tool.call.id"]: s for s in otel.tool_spans()}
    unknown, denied = dict(spans["1"].attributes or {}), dict(spans["2"].attributes or {})
    assert unknown["prism.blocked.reason"] == "unknown_tool"
    assert unknown["error.type"] == "unknown_tool"
    assert denied["prism.blocked.reason"] == "permission_denied"
    assert denied["prism.policy.decision"] == "denied"
    assert spans["2"].status.status_code is StatusCode.ERROR
    assert spans["2"].end_time is not None and spans["2"].start_time is not None
    assert spans["2"].end_time >= spans["2"].start_time


async def test_a_raising_handler_ends_its_span_with_error_type(otel: Otel) -> None:
    telemetry = _telemetry(otel)

    async def boom(args: Any, ctx: ToolExecutionContext) -> str:
        raise LookupError("no such row")

    registry = ToolRegistry([ToolDefinition(name="boom", execute=boom)])
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            ToolCall(id="x", name="boom", arguments={}), registry=registry, emit=telemetry
        )
    assert result.error is not None
    [span] = otel.tool_spans()
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == (result.error.code or result.error.name)
    assert attributes["prism.outcome"] == "error"
    assert span.status.status_code is StatusCode.ERROR
    assert "no such row" in (span.status.description or "")


async def test_mcp_tools_carry_their_server_id(otel: Otel) -> None:
    telemetry = _telemetry(otel)
    tool = ToolDefinition(
        name="files__read",
        execute=echo,
        description="Read a file",
        metadata={"mcp_server_id": "files", "mcp_tool_name": "read"},
    )
    registry = telemetry.instrument(ToolRegistry([tool]))
    with anyio.fail_after(scaled(10)):
        await dispatch_tool_call(
            ToolCall(id="m", name="files__read", arguments={}), registry=registry, emit=telemetry
        )
    attributes = dict(otel.tool_spans()[0].attributes or {})
    assert attributes["prism.mcp.server_id"] == "files"
    assert attributes["gen_ai.tool.type"] == "extension"
    assert attributes["gen_ai.tool.description"] == "Read a file"


async def test_calls_cancelled_by_an_abort_end_their_spans(otel: Otel) -> None:
    telemetry = _telemetry(otel)
    started = anyio.Event()

    async def hang(args: Any, ctx: ToolExecutionContext) -> str:
        started.set()
        await anyio.sleep_forever()
        return "never"

    registry = ToolRegistry([ToolDefinition(name="hang", execute=hang)])
    controller = AbortController()
    calls = [
        ToolCall(id="h", name="hang", arguments={}),
        ToolCall(id="q", name="hang", arguments={}),
    ]

    async def abort_soon() -> None:
        await started.wait()
        controller.abort("user stopped")

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(abort_soon)
            results = await dispatch_tool_calls_in_order(
                calls, registry=registry, emit=telemetry, signal=controller.signal,
                abort_grace_seconds=0.05,
            )  # fmt: skip
    assert all(r.error is not None for r in results)
    spans = {dict(s.attributes or {})["gen_ai.tool.call.id"]: s for s in otel.tool_spans()}
    assert set(spans) == {"h", "q"}
    assert dict(spans["h"].attributes or {})["error.type"] == "aborted"
    assert dict(spans["q"].attributes or {})["prism.blocked.reason"] == "aborted"
    assert telemetry.current_span("", "", "h") is None


async def test_spans_of_calls_the_host_cancelled_are_bounded_and_ended(otel: Otel) -> None:
    telemetry = _telemetry(otel, max_open_spans=2)

    async def hang(args: Any, ctx: ToolExecutionContext) -> str:
        await anyio.sleep_forever()
        return "never"

    registry = ToolRegistry([ToolDefinition(name="hang", execute=hang)])
    for index in range(4):
        with anyio.move_on_after(0.05):
            await dispatch_tool_call(
                ToolCall(id=f"c{index}", name="hang", arguments={}),
                registry=registry,
                emit=telemetry,
            )
    abandoned = [
        s for s in otel.tool_spans() if dict(s.attributes or {}).get("prism.outcome") == "abandoned"
    ]
    assert len(abandoned) == 2
    assert telemetry.current_span("", "", "c3") is not None
