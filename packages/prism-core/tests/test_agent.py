"""The minimal agent loop: transcript shape, round limits, option precedence, abort."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    TextContent,
    ToolCall,
    ToolExecutionContext,
    ToolGates,
)
from prism.core._backend import sleep, task_group
from prism.core.agent import (
    Agent,
    AssistantMessage,
    LoopOptions,
    ModelResponse,
    RunLimits,
    RunOptions,
    ToolMessage,
    UserMessage,
)
from prism.core.testing import ScriptedProvider

pytestmark = pytest.mark.anyio


def _turn(*ids: str, name: str = "echo") -> ModelResponse:
    return ModelResponse(tool_calls=tuple(ToolCall(id=i, name=name, arguments={}) for i in ids))


def _final(text: str = "done") -> ModelResponse:
    return ModelResponse(content=(TextContent(text=text),))


async def test_two_rounds_of_two_parallel_calls(canary: Any) -> None:
    provider = ScriptedProvider([_turn("a", "b"), _turn("c", "d"), _final()])
    agent = Agent(
        provider=provider,
        model="m",
        tools=[canary.tool("echo")],
        loop=LoopOptions(tool_concurrency=2),
    )
    result = await agent.run("go")
    roles = [m.role for m in result.messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "tool", "tool", "assistant"]
    tool_ids = [m.result.tool_call_id for m in result.messages if isinstance(m, ToolMessage)]
    assert tool_ids == ["a", "b", "c", "d"]
    assert (result.status, result.finish_reason, result.final_text) == ("succeeded", "stop", "done")
    assert sorted(canary.entered) == ["a", "b", "c", "d"]
    assert [t.name for t in provider.requests[0].tools] == ["echo"]
    assert len(provider.requests[2].messages) == 7


async def test_round_limit_answers_every_unanswered_call(canary: Any, events: Any) -> None:
    provider = ScriptedProvider([_turn("a"), _turn("b", "c"), _final()])
    ledger = InMemoryRunLedger()
    agent = Agent(
        provider=provider,
        model="m",
        tools=[canary.tool("echo")],
        limits=RunLimits(max_tool_rounds=1),
        gates=ToolGates(ledger=ledger),
    )
    result = await agent.run("go", emit=events)
    assert result.finish_reason == "tool_round_limit"
    last_two = result.messages[-2:]
    assert all(isinstance(m, ToolMessage) for m in last_two)
    codes = [m.result.error.code for m in last_two]  # type: ignore[union-attr]
    assert codes == ["tool_round_limit", "tool_round_limit"]
    assert canary.entered == ["a"]
    assert events.types("b") == ["tool_execution_blocked"]
    assert [r.status for r in ledger.records if r.tool_call_id == "c"] == ["blocked"]
    _assert_transcript_valid(result.messages)


async def test_run_limits_may_only_narrow(canary: Any) -> None:
    script = [_turn("a"), _turn("b"), _turn("c"), _final()]
    wide = Agent(
        provider=ScriptedProvider(script), model="m", tools=[canary.tool("echo")],
        limits=RunLimits(max_tool_rounds=1),
    )  # fmt: skip
    widened = await wide.run("go", options=RunOptions(limits=RunLimits(max_tool_rounds=5)))
    assert widened.finish_reason == "tool_round_limit"
    narrow = Agent(provider=ScriptedProvider(script), model="m", tools=[canary.tool("echo")])
    narrowed = await narrow.run("go", options=RunOptions(limits=RunLimits(max_tool_rounds=2)))
    assert narrowed.finish_reason == "tool_round_limit"
    assert sum(isinstance(m, ToolMessage) and not m.result.is_error for m in narrowed.messages) == 2


async def test_run_options_override_agent_options(canary: Any) -> None:
    in_flight: list[int] = [0, 0]

    async def tracked(args: Any, ctx: ToolExecutionContext) -> str:
        in_flight[0] += 1
        in_flight[1] = max(in_flight)
        await sleep(0.02)
        in_flight[0] -= 1
        return "ok"

    from prism.core import ToolDefinition

    def agent_validator(tool: Any, args: Any, ctx: Any) -> str:
        return "agent validator blocks"

    agent = Agent(
        provider=ScriptedProvider([_turn("a", "b", "c", name="t"), _final()]),
        model="m",
        tools=[ToolDefinition(name="t", execute=tracked)],
        gates=ToolGates(validator=agent_validator),
        loop=LoopOptions(tool_concurrency=1),
    )
    result = await agent.run(
        "go",
        options=RunOptions(
            loop=LoopOptions(tool_concurrency=3), validator=lambda tool, args, ctx: None
        ),
    )
    assert all(not m.result.is_error for m in result.messages if isinstance(m, ToolMessage))
    assert in_flight[1] == 3


async def test_provider_failure_ends_the_run_failed() -> None:
    agent = Agent(provider=ScriptedProvider([]), model="m")
    result = await agent.run("go")
    assert (result.status, result.finish_reason) == ("failed", "error")
    assert result.error is not None and "only 0 responses" in result.error.message


async def test_abort_during_tools_keeps_transcript_valid(canary: Any) -> None:
    controller = AbortController()

    async def slow(args: Any, ctx: ToolExecutionContext) -> str:
        await sleep(30)
        return "never"

    from prism.core import ToolDefinition

    agent = Agent(
        provider=ScriptedProvider([_turn("a", "b", name="slow"), _final()]),
        model="m",
        tools=[ToolDefinition(name="slow", execute=slow)],
    )

    async def stop() -> None:
        await sleep(0.05)
        controller.abort("stop")

    async with task_group() as group:
        group.start_soon(stop)
        result = await agent.run(
            [UserMessage(content="go")],
            options=RunOptions(signal=controller.signal, abort_grace_seconds=0.05),
        )
    assert (result.status, result.finish_reason) == ("aborted", "aborted")
    _assert_transcript_valid(result.messages)
    codes = [m.result.error.code for m in result.messages if isinstance(m, ToolMessage)]  # type: ignore[union-attr]
    assert codes == ["aborted", "aborted"]


async def test_abort_while_model_generates() -> None:
    controller = AbortController()

    class Hanging:
        async def generate(self, request: Any) -> ModelResponse:
            await sleep(30)
            return _final()

    async def stop() -> None:
        await sleep(0.05)
        controller.abort()

    async with task_group() as group:
        group.start_soon(stop)
        result = await Agent(provider=Hanging(), model="m").run(
            "go", options=RunOptions(signal=controller.signal)
        )
    assert result.status == "aborted"


def _assert_transcript_valid(messages: tuple[Any, ...]) -> None:
    """Every assistant tool call is answered by exactly one tool message, in call order."""
    expected: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            assert not expected, f"calls {expected} left unanswered"
            expected = [c.id for c in message.tool_calls]
        elif isinstance(message, ToolMessage):
            assert expected, "tool message without a call"
            assert message.result.tool_call_id == expected.pop(0)
    assert not expected, f"calls {expected} left unanswered"


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"provider": ScriptedProvider([]), "model": "m", "tool": []}, TypeError, "unknown.*tool"),
        ({"provider": object(), "model": "m"}, TypeError, r"Agent\.provider"),
        ({"model": "m"}, TypeError, r"Agent\.provider"),
        ({"provider": ScriptedProvider([]), "model": ""}, ValueError, r"Agent\.model"),
        ({"provider": ScriptedProvider([]), "model": 3}, TypeError, r"Agent\.model"),
        ({"provider": ScriptedProvider([]), "model": "m", "limits": 3}, TypeError, "limits"),
    ],
)
def test_bad_agent_settings_are_named(settings: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Agent(**settings)
