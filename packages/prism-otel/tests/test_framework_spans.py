"""Under pydantic-ai and the OpenAI Agents SDK a tool call is one span, nested, with one status.

Real frameworks (the LLM is scripted), the real OTel SDK and an in-memory exporter. Each run calls
``add`` (finishes), ``rm`` (denied by the permission policy) and ``boom`` (its handler raises).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from prism.core import (
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    create_static_permission_policy,
)
from prism.core.testing import scaled
from prism.otel import ToolTelemetry

from .conftest import Otel

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # both frameworks run on asyncio only


async def boom(args: Any, ctx: ToolExecutionContext) -> str:
    raise LookupError("no such row")


def _pipeline(telemetry: ToolTelemetry, otel: Otel) -> ToolPipeline:
    tracer = otel.tracer_provider.get_tracer("tool")

    async def add(args: Any, ctx: ToolExecutionContext) -> str:
        with tracer.start_as_current_span("add inner"):
            return str(args["a"] + args["b"])

    schema = {"type": "object"}
    tools = [
        ToolDefinition(name="add", execute=add, parameters=schema),
        ToolDefinition(name="rm", execute=add, parameters=schema),
        ToolDefinition(name="boom", execute=boom, parameters=schema),
    ]
    return ToolPipeline(
        registry=telemetry.instrument(ToolRegistry(tools)),
        emit=telemetry,
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:rm:*"])),
    )


def _parent(span: ReadableSpan, spans: list[ReadableSpan]) -> ReadableSpan | None:
    if span.parent is None:
        return None
    return next((s for s in spans if s.context.span_id == span.parent.span_id), None)


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    names: list[str] = []
    parent = _parent(span, spans)
    while parent is not None:
        names.append(parent.name)
        parent = _parent(parent, spans)
    return names


def _check_tool_spans(otel: Otel, agent_span: str) -> dict[str, ReadableSpan]:
    """One span per call, under the agent's span, in the host's trace, with Prism's outcome."""
    spans = otel.spans()
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert sorted(s.name for s in tools) == [
        "execute_tool add",
        "execute_tool boom",
        "execute_tool rm",
    ]
    [host] = [s for s in spans if s.name == "host request"]
    assert {s.context.trace_id for s in spans} == {host.context.trace_id}
    for span in tools:
        assert agent_span in _ancestors(span, spans), (span.name, _ancestors(span, spans))
        assert _ancestors(span, spans)[-1] == "host request"
    by_name = {s.name.removeprefix("execute_tool "): s for s in tools}
    inner = next(s for s in spans if s.name == "add inner")
    assert _parent(inner, spans) is by_name["add"]
    expected = {
        "add": ("finished", StatusCode.UNSET),
        "rm": ("blocked", StatusCode.ERROR),
        "boom": ("error", StatusCode.ERROR),
    }
    for name, (outcome, status) in expected.items():
        attributes = dict(by_name[name].attributes or {})
        assert attributes["prism.outcome"] == outcome, name
        assert by_name[name].status.status_code is status, name
    assert dict(by_name["rm"].attributes or {})["prism.policy.decision"] == "denied"
    assert dict(by_name["boom"].attributes or {})["error.type"] == "LookupError"
    return by_name


async def test_pydantic_ai_tool_spans_are_enriched_not_duplicated(otel: Otel) -> None:
    from pydantic_ai import Agent, InstrumentationSettings
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from prism.pydantic_ai import PrismToolset

    turns = [
        [
            ToolCallPart(name, {"a": 1, "b": 2}, tool_call_id=f"c-{name}")
            for name in ("add", "rm", "boom")
        ]
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=list(turns.pop(0)) if turns else [TextPart("done")])

    telemetry = ToolTelemetry(tracer_provider=otel.tracer_provider)
    settings = InstrumentationSettings(tracer_provider=otel.tracer_provider)
    agent = Agent(
        FunctionModel(respond),
        toolsets=[PrismToolset(_pipeline(telemetry, otel))],
        capabilities=[Instrumentation(settings=settings)],
    )
    host = otel.tracer_provider.get_tracer("host")
    with host.start_as_current_span("host request"), anyio.fail_after(scaled(30)):
        await agent.run("go")
    by_name = _check_tool_spans(otel, "invoke_agent agent")
    for name, span in by_name.items():
        assert dict(span.attributes or {})["gen_ai.tool.call.id"] == f"c-{name}"


async def test_without_enrichment_prism_opens_a_child_of_the_framework_span(otel: Otel) -> None:
    from pydantic_ai import Agent, InstrumentationSettings
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from prism.pydantic_ai import PrismToolset

    turns = [[ToolCallPart("add", {"a": 1, "b": 2}, tool_call_id="c1")]]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=list(turns.pop(0)) if turns else [TextPart("done")])

    telemetry = ToolTelemetry(tracer_provider=otel.tracer_provider, enrich_framework_spans=False)
    settings = InstrumentationSettings(tracer_provider=otel.tracer_provider)
    agent = Agent(
        FunctionModel(respond),
        toolsets=[PrismToolset(_pipeline(telemetry, otel))],
        capabilities=[Instrumentation(settings=settings)],
    )
    with anyio.fail_after(scaled(30)):
        await agent.run("go")
    spans = otel.spans()
    framework, prism = sorted(
        (s for s in spans if s.name == "execute_tool add"), key=lambda s: s.start_time or 0
    )
    assert _parent(prism, spans) is framework
    assert "prism.outcome" not in dict(framework.attributes or {})
    assert dict(prism.attributes or {})["prism.outcome"] == "finished"


@pytest.fixture
def agents_tracing(otel: Otel) -> Iterator[None]:
    """The Agents SDK's global trace provider with only the bridge; restored afterwards."""
    from agents.tracing import setup
    from agents.tracing.provider import DefaultTraceProvider

    from prism.otel.openai_agents import OpenAIAgentsBridge

    before = setup.GLOBAL_TRACE_PROVIDER
    provider = DefaultTraceProvider()
    provider.set_disabled(False)
    provider.set_processors([OpenAIAgentsBridge(tracer_provider=otel.tracer_provider)])
    setup.set_trace_provider(provider)
    yield
    provider.shutdown()
    setup.GLOBAL_TRACE_PROVIDER = before


@pytest.mark.usefixtures("agents_tracing")
async def test_openai_agents_tool_spans_nest_under_the_bridged_agent_span(otel: Otel) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from prism.openai_agents import prism_function_tools

    calls = [
        function_call(name, {"a": 1, "b": 2}, call_id=f"c-{name}") for name in ("add", "rm", "boom")
    ]
    model = ScriptedModel([calls, [assistant_message("done")]])
    telemetry = ToolTelemetry(tracer_provider=otel.tracer_provider)
    agent = Agent(
        name="scripted", model=model, tools=prism_function_tools(_pipeline(telemetry, otel))
    )
    host = otel.tracer_provider.get_tracer("host")
    with host.start_as_current_span("host request") as request, anyio.fail_after(scaled(30)):
        await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=False))
        assert trace.get_current_span() is request  # the bridge left no context attached
    by_name = _check_tool_spans(otel, "invoke_agent scripted")
    for name, span in by_name.items():
        assert dict(span.attributes or {})["gen_ai.tool.call.id"] == f"c-{name}"
        assert dict(span.attributes or {})["openai_agents.span.type"] == "function"


def test_bridge_options_out_of_bounds_are_refused_by_name() -> None:
    from prism.otel.openai_agents import OpenAIAgentsBridge

    with pytest.raises(ValueError, match=r"OpenAIAgentsBridge\.max_open_spans"):
        OpenAIAgentsBridge(max_open_spans=0)
