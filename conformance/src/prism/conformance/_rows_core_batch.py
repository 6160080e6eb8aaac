"""Conformance rows owned by prism-core about batches and the loop: 5, E1."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from prism.core import (
    JsonObject,
    MiddlewareRegistry,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
)
from prism.core.agent import LoopOptions, ModelResponse, RunLimits, ToolMessage
from prism.core.testing import ScriptedProvider

from . import _aio
from ._canary import Canary, EventRecorder, canary_tool
from ._inspect import assert_transcript_valid
from ._registry import conformance_row
from ._subjects import ConformanceSubjects

_CONCURRENCY = 3
_DELAYS = (0.06, 0.01, 0.045, 0.02, 0.05, 0.005, 0.03, 0.015)
"""Call ``i`` sleeps ``_DELAYS[i]``: completion order differs from call order."""


class InFlight:
    """Counts handlers in flight, measured inside the handlers themselves."""

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0
        self.completed: list[str] = []

    def reset(self) -> None:
        self.current = self.peak = 0
        self.completed = []

    def tool(self, name: str, *, exclusive: bool = False) -> ToolDefinition:
        """A tool that sleeps ``delay`` seconds and answers ``{"index": index}``."""

        async def execute(args: JsonObject, ctx: ToolExecutionContext) -> Any:
            self.current += 1
            self.peak = max(self.peak, self.current)
            try:
                await _aio.sleep(float(args["delay"]))  # type: ignore[arg-type]
            finally:
                self.current -= 1
            self.completed.append(ctx.tool_call_id)
            return {"index": args["index"]}

        return ToolDefinition(name=name, execute=execute, exclusive=exclusive)


def _calls(prefix: str, names: Sequence[str]) -> list[ToolCall]:
    return [
        ToolCall(
            id=f"{prefix}-{i}",
            name=name,
            arguments={"index": i, "delay": _DELAYS[i % len(_DELAYS)]},
        )
        for i, name in enumerate(names)
    ]


def _expect_in_order(results: Sequence[ToolResult], calls: Sequence[ToolCall], what: str) -> None:
    got = [r.tool_call_id for r in results]
    want = [c.id for c in calls]
    if got != want:
        raise AssertionError(f"{what}: results are not in call order: expected {want}, got {got}")
    for index, result in enumerate(results):
        if result.error is not None or result.value != {"index": index}:
            raise AssertionError(
                f"{what}: slot {index} should hold the result of call {want[index]!r} "
                f"({{'index': {index}}}), got value={result.value!r} error={result.error!r}"
            )


async def _batch(
    subjects: ConformanceSubjects,
    calls: list[ToolCall],
    registry: Any,
    *,
    middleware: MiddlewareRegistry | None = None,
) -> tuple[ToolResult, ...]:
    batch = subjects.dispatch_batch
    if middleware is None:  # a subject need not accept gates until a row uses them
        return tuple(await batch(calls, tool_concurrency=_CONCURRENCY, registry=registry))
    gates = ToolGates(middleware=middleware)
    return tuple(await batch(calls, tool_concurrency=_CONCURRENCY, registry=registry, gates=gates))


@conformance_row("5")
async def bounded_parallel_calls_in_order(subjects: ConformanceSubjects) -> None:
    """At most N in flight (measured inside handlers), call order kept, exclusive per turn."""
    probe = InFlight()
    registry = ToolRegistry([probe.tool("work"), probe.tool("lock", exclusive=True)])
    calls = _calls("parallel", ["work"] * len(_DELAYS))
    results = await _batch(subjects, calls, registry)
    _expect_in_order(results, calls, f"{len(calls)} calls at tool_concurrency={_CONCURRENCY}")
    if probe.peak > _CONCURRENCY:
        raise AssertionError(
            f"{probe.peak} handlers ran at once with tool_concurrency={_CONCURRENCY}"
        )
    if probe.peak < _CONCURRENCY:
        raise AssertionError(
            f"at most {probe.peak} handler(s) ran at once with tool_concurrency={_CONCURRENCY} "
            f"and {len(calls)} calls of 5-60 ms: the configured concurrency is not used"
        )
    if probe.completed == [c.id for c in calls]:
        raise AssertionError("handlers completed in call order although their delays differ")
    await _exclusive_turns(subjects, probe, registry)
    await _transcript_order(subjects, probe)


async def _exclusive_turns(subjects: ConformanceSubjects, probe: InFlight, registry: Any) -> None:
    probe.reset()
    calls = _calls("exclusive", ["work", "work", "lock", "work"])
    _expect_in_order(
        await _batch(subjects, calls, registry), calls, "a turn calling an exclusive tool"
    )
    if probe.peak != 1:
        raise AssertionError(
            "a turn that calls an exclusive tool must run one call at a time, saw "
            f"{probe.peak} in flight"
        )
    probe.reset()
    middleware = MiddlewareRegistry()

    def rename(call: ToolCall) -> ToolCall | None:
        return dataclasses.replace(call, name="lock") if call.name == "alias" else None

    middleware.use("tool_call", rename)
    calls = _calls("renamed", ["work", "alias", "work", "work"])
    results = await _batch(subjects, calls, registry, middleware=middleware)
    _expect_in_order(results, calls, "a turn whose call is renamed to an exclusive tool")
    if probe.peak != 1:
        raise AssertionError(
            "exclusivity must be judged on the name after tool_call middleware: a call renamed "
            f"to the exclusive tool 'lock' still let {probe.peak} calls run at once"
        )
    probe.reset()
    calls = _calls("next-turn", ["work"] * 4)
    _expect_in_order(
        await _batch(subjects, calls, registry), calls, "the turn after an exclusive one"
    )
    if probe.peak != _CONCURRENCY:
        raise AssertionError(
            f"an exclusive tool must serialize only its own turn; the next turn ran at most "
            f"{probe.peak} call(s) at once instead of {_CONCURRENCY}"
        )


async def _transcript_order(subjects: ConformanceSubjects, probe: InFlight) -> None:
    probe.reset()
    calls = _calls("agent", ["work"] * 6)
    provider = ScriptedProvider(
        [ModelResponse(tool_calls=tuple(calls)), ModelResponse(content=(TextContent(text="done"),))]
    )
    agent = subjects.agent_factory(
        provider=provider,
        model="conformance",
        tools=[probe.tool("work")],
        loop=LoopOptions(tool_concurrency=_CONCURRENCY),
    )
    run = await agent.run("run six tools")
    assert_transcript_valid(run.messages)
    answered = [m.result.tool_call_id for m in run.messages if isinstance(m, ToolMessage)]
    if answered != [c.id for c in calls]:
        raise AssertionError(f"transcript tool messages are not in call order: {answered}")
    if probe.peak > _CONCURRENCY or probe.completed == [c.id for c in calls]:
        raise AssertionError(
            f"the agent loop ran {probe.peak} handlers at once (limit {_CONCURRENCY}) with "
            f"completion order {probe.completed}"
        )


@conformance_row("E1")
async def round_limit_answers_every_call(subjects: ConformanceSubjects) -> None:
    """Beyond ``max_tool_rounds`` every call gets ``tool_round_limit``; transcript stays valid."""
    canary = Canary("the handler of tool 'step'")
    rounds = [
        [ToolCall(id=f"r{r}-c{c}", name="step", arguments={"round": r}) for c in range(size)]
        for r, size in enumerate((2, 2, 3))
    ]
    provider = ScriptedProvider(
        [ModelResponse(tool_calls=tuple(calls)) for calls in rounds]
        + [ModelResponse(content=(TextContent(text="never reached"),))]
    )
    events = EventRecorder()
    agent = subjects.agent_factory(
        provider=provider,
        model="conformance",
        tools=[canary_tool("step", canary)],
        limits=RunLimits(max_tool_rounds=2),
    )
    run = await agent.run("keep calling tools", emit=events)
    assert_transcript_valid(run.messages)
    if run.finish_reason != "tool_round_limit":
        raise AssertionError(f"finish_reason must be 'tool_round_limit', got {run.finish_reason!r}")
    canary.assert_count(4, "two rounds of two calls may run; the third round is over the limit")
    last = [m.result for m in run.messages if isinstance(m, ToolMessage)][-3:]
    for call, result in zip(rounds[2], last, strict=True):
        code = result.error.code if result.error is not None else None
        if result.tool_call_id != call.id or code != "tool_round_limit":
            raise AssertionError(
                f"unanswered call {call.id!r} must get a tool_round_limit result, got "
                f"tool_call_id={result.tool_call_id!r} code={code!r}"
            )
        if events.of_type("tool_execution_started", call.id):
            raise AssertionError(f"call {call.id!r} beyond the round limit was started")
    if len(provider.requests) != 3:
        raise AssertionError(
            "the run must end at the round limit; the model was asked "
            f"{len(provider.requests)} times"
        )
