"""Decorated tools go through ``dispatch_tool_call`` (and an agent run) on asyncio and trio."""

import dataclasses
import enum
import threading
from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    ImageContent,
    InMemoryRunLedger,
    TextContent,
    ToolCall,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
    render_tool_result,
)
from prism.core.agent import Agent, ModelResponse
from prism.core.events import AgentEvent
from prism.core.functions import tool
from prism.core.testing import ScriptedProvider, scaled

pytestmark = pytest.mark.anyio


class Unit(enum.Enum):
    CELSIUS = "C"
    FAHRENHEIT = "F"


@dataclasses.dataclass(frozen=True)
class Reading:
    city: str
    degrees: float
    unit: Unit


@tool
def weather(city: str, unit: Unit = Unit.CELSIUS) -> Reading:
    """Current temperature in a city.

    Args:
        city: The city name.
        unit: Temperature unit.
    """
    weather_threads.append(threading.get_ident())
    return Reading(city=city, degrees=21.5 if unit is Unit.CELSIUS else 70.7, unit=unit)


weather_threads: list[int] = []


@tool(name="progress_report", exclusive=True)
async def report(steps: int, ctx: ToolExecutionContext) -> str:
    """Report progress for each step."""
    for step in range(steps):
        await ctx.progress((step + 1) / steps, f"step {step + 1}")
    return f"done in {steps} steps (call {ctx.tool_call_id})"


@tool
async def picture() -> list[Any]:
    """Return content blocks."""
    return [TextContent(text="a picture:"), ImageContent(data="AAAA", mime_type="image/png")]


@tool
def fail(reason: str) -> None:
    """Always fails."""
    raise RuntimeError(reason)


@tool
def explicit(ctx: ToolExecutionContext) -> ToolResult:
    """Returns its own ToolResult with the wrong ids; dispatch stamps the real ones."""
    return ToolResult(tool_call_id="other", name="other", value={"session": ctx.session_id})


REGISTRY = ToolRegistry([weather, report, picture, fail, explicit])


def call(name: str, arguments: dict[str, Any], call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


async def test_sync_tool_runs_in_a_worker_thread_and_returns_json() -> None:
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            call("weather", {"city": "Oslo", "unit": "F"}), registry=REGISTRY
        )
    assert not result.is_error
    assert result.value == {"city": "Oslo", "degrees": 70.7, "unit": "F"}
    assert (result.tool_call_id, result.name) == ("c1", "weather")
    assert weather_threads[-1] != threading.get_ident()
    assert render_tool_result(result) == '{"city":"Oslo","degrees":70.7,"unit":"F"}'


async def test_defaults_apply_when_arguments_are_omitted() -> None:
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(call("weather", {"city": "Rome"}), registry=REGISTRY)
    assert result.value == {"city": "Rome", "degrees": 21.5, "unit": "C"}


async def test_async_tool_receives_the_context_and_reports_progress() -> None:
    events: list[AgentEvent] = []
    context = ToolExecutionContext(
        session_id="session", run_id="run", tool_call_id="ignored", signal=AbortController().signal
    )
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            call("progress_report", {"steps": 2}, "c7"),
            registry=REGISTRY,
            context=context,
            emit=events.append,
        )
    assert result.content == (TextContent(text="done in 2 steps (call c7)"),)
    progress = [e for e in events if e.type == "tool_execution_progress"]
    assert [(e.progress, e.message) for e in progress] == [(0.5, "step 1"), (1.0, "step 2")]
    assert REGISTRY.get("progress_report") is not None
    assert REGISTRY.resolve("progress_report").exclusive is True


async def test_content_blocks_and_tool_results_pass_through() -> None:
    with anyio.fail_after(scaled(10)):
        pictured = await dispatch_tool_call(call("picture", {}), registry=REGISTRY)
        stamped = await dispatch_tool_call(call("explicit", {}, "c9"), registry=REGISTRY)
    assert pictured.content == (
        TextContent(text="a picture:"),
        ImageContent(data="AAAA", mime_type="image/png"),
    )
    assert (stamped.tool_call_id, stamped.name, stamped.value) == (
        "c9",
        "explicit",
        {"session": ""},
    )


async def test_bad_arguments_become_an_error_result_the_model_can_act_on() -> None:
    events: list[AgentEvent] = []
    ledger = InMemoryRunLedger()
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            call("weather", {"city": "Oslo", "unit": "kelvin"}),
            registry=REGISTRY,
            emit=events.append,
            gates=ToolGates(ledger=ledger),
        )
    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert result.error.name == "ToolArgumentsError"
    assert result.error.message == "Invalid arguments: /unit: expected one of 'C', 'F'"
    assert [e.type for e in events] == ["tool_execution_started", "tool_execution_failed"]
    assert [r.status for r in ledger.records] == ["started", "error"]


async def test_a_raising_tool_is_an_error_event_with_its_message() -> None:
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(call("fail", {"reason": "disk full"}), registry=REGISTRY)
    assert result.error is not None
    assert (result.error.name, result.error.message) == ("RuntimeError", "disk full")


async def test_the_schema_feeds_a_parameter_validator_before_the_call() -> None:
    jsonschema = pytest.importorskip("jsonschema")

    def validate(definition: Any, arguments: Any, context: Any) -> str | None:
        errors = list(jsonschema.Draft202012Validator(definition.parameters).iter_errors(arguments))
        return "; ".join(e.message for e in errors) or None

    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            call("weather", {"city": 3}), registry=REGISTRY, gates=ToolGates(validator=validate)
        )
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert "3 is not of type 'string'" in result.error.message


async def test_batches_keep_call_order_with_function_tools() -> None:
    calls = [
        call("weather", {"city": "A"}, "1"),
        call("fail", {"reason": "no"}, "2"),
        call("weather", {"city": "B", "unit": "F"}, "3"),
    ]
    with anyio.fail_after(scaled(10)):
        results = await dispatch_tool_calls_in_order(calls, tool_concurrency=3, registry=REGISTRY)
    assert [r.tool_call_id for r in results] == ["1", "2", "3"]
    assert [r.is_error for r in results] == [False, True, False]


async def test_strict_tools_treat_null_as_not_given() -> None:
    @tool(strict=True)
    def search(query: str, limit: int = 5, tag: str | None = None) -> dict[str, Any]:
        """Search."""
        return {"query": query, "limit": limit, "tag": tag}

    registry = ToolRegistry([search])
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(
            call("search", {"query": "q", "limit": None, "tag": None}), registry=registry
        )
    assert result.value == {"query": "q", "limit": 5, "tag": None}


async def test_an_agent_sends_the_schema_and_runs_the_function() -> None:
    provider = ScriptedProvider(
        [
            ModelResponse(content=(), tool_calls=(call("weather", {"city": "Lima"}, "t1"),)),
            ModelResponse(content=(TextContent(text="It is 21.5 C in Lima."),), tool_calls=()),
        ]
    )
    agent = Agent(provider=provider, model="scripted", tools=[weather])
    with anyio.fail_after(scaled(10)):
        run = await agent.run("How warm is Lima?")
    assert run.status == "succeeded"
    spec = provider.requests[0].tools[0]
    assert (spec.name, spec.description) == ("weather", "Current temperature in a city.")
    assert spec.parameters == weather.parameters
    tool_message = run.messages[2]
    assert tool_message.result.value == {"city": "Lima", "degrees": 21.5, "unit": "C"}  # type: ignore[union-attr]
