"""Conformance rows owned by prism-core about aborting a turn: 6 (parallel) and E2 (sequential).

The abort is triggered from inside the last in-flight handler, so exactly the intended calls
are running when it happens. One in-flight handler honours the signal (raises ``AbortError``),
one ignores it (only a cancellation after the grace period stops it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prism.core import (
    AbortController,
    JsonObject,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    ToolResult,
)
from prism.core.testing import scaled

from . import _aio
from ._canary import Canary, EventRecorder, canary_tool
from ._registry import conformance_row
from ._rows_core import describe_result, expect_blocked
from ._subjects import ConformanceSubjects

_GRACE_SECONDS = 0.25
_IGNORE_FOR_SECONDS = 2.5
"""How long the signal-ignoring handler keeps going if nobody cancels it."""
_SLACK_SECONDS = 2.0


class _Handler:
    """What one in-flight handler saw: started, observed the abort, exited, ticks."""

    def __init__(self) -> None:
        self.started = False
        self.observed_abort = False
        self.exited = False
        self.ticks = 0


class _Scenario:
    """Tools for one abort scenario: ``fast``, ``honour``, ``ignore`` and ``never``."""

    def __init__(self, in_flight: Sequence[str]) -> None:
        self.controller = AbortController()
        self.in_flight = tuple(in_flight)
        self.handlers = {name: _Handler() for name in self.in_flight}
        self.fast = Canary("the handler of tool 'fast'")
        self.never = Canary("a handler queued behind the in-flight calls")
        self.never_started_after_abort = False

    def _maybe_abort(self) -> None:
        if all(h.started for h in self.handlers.values()):
            self.controller.abort("conformance: abort mid-turn")

    async def honour(self, args: JsonObject, ctx: ToolExecutionContext) -> ToolResult:
        state = self.handlers["honour"]
        state.started = True
        self._maybe_abort()
        try:
            async with _aio.move_on_after(scaled(_IGNORE_FOR_SECONDS)):
                await ctx.signal.wait()
            state.observed_abort = ctx.signal.aborted
            ctx.signal.throw_if_aborted()
            return ToolResult(tool_call_id=ctx.tool_call_id, name="honour", value="never aborted")
        finally:
            state.exited = True

    async def ignore(self, args: JsonObject, ctx: ToolExecutionContext) -> str:
        state = self.handlers["ignore"]
        state.started = True
        self._maybe_abort()
        try:
            deadline = _aio.monotonic() + scaled(_IGNORE_FOR_SECONDS)
            while _aio.monotonic() < deadline:
                state.observed_abort = state.observed_abort or ctx.signal.aborted
                state.ticks += 1
                await _aio.sleep(0.01)
            return "ignored the abort and finished"
        finally:
            state.exited = True

    def tools(self) -> list[ToolDefinition]:
        async def never(args: JsonObject, ctx: ToolExecutionContext) -> str:
            self.never_started_after_abort = self.controller.signal.aborted
            return "should never run"

        return [
            canary_tool("fast", self.fast),
            ToolDefinition(name="honour", execute=self.honour),
            ToolDefinition(name="ignore", execute=self.ignore),
            canary_tool("never", self.never, respond=never),
        ]

    def calls(self) -> list[ToolCall]:
        names = ["fast", *self.in_flight, "never", "never"]
        return [ToolCall(id=f"abort-{i}-{n}", name=n, arguments={}) for i, n in enumerate(names)]


async def _run_scenario(
    subjects: ConformanceSubjects, *, concurrency: int, in_flight: Sequence[str]
) -> None:
    scenario = _Scenario(in_flight)
    calls = scenario.calls()
    events = EventRecorder()
    began = _aio.monotonic()
    results = await subjects.dispatch_batch(
        calls,
        tool_concurrency=concurrency,
        signal=scenario.controller.signal,
        abort_grace_seconds=_GRACE_SECONDS,
        registry=ToolRegistry(scenario.tools()),
        emit=events,
    )
    elapsed = _aio.monotonic() - began
    where = f"abort with {'+'.join(in_flight)} in flight at tool_concurrency={concurrency}"
    _expect_no_orphans(scenario, where)
    ticks = {n: h.ticks for n, h in scenario.handlers.items()}
    if not scenario.controller.signal.aborted:
        raise AssertionError(f"{where}: the in-flight handlers never all started, so no abort")
    _expect_results(scenario, calls, list(results), events, where)
    if elapsed > _GRACE_SECONDS + scaled(_SLACK_SECONDS):
        raise AssertionError(
            f"{where}: the batch took {elapsed:.2f} s; a handler ignoring the signal must be "
            f"cancelled {_GRACE_SECONDS} s after the abort"
        )
    await _aio.sleep(0.05)
    if {n: h.ticks for n, h in scenario.handlers.items()} != ticks:
        raise AssertionError(f"{where}: a handler kept running after the batch returned")


def _expect_no_orphans(scenario: _Scenario, where: str) -> None:
    for name, state in scenario.handlers.items():
        if state.started and not state.exited:
            raise AssertionError(
                f"{where}: the {name!r} handler was still running when the batch returned "
                "(no task may outlive the batch)"
            )


def _expect_results(
    scenario: _Scenario,
    calls: list[ToolCall],
    results: list[ToolResult],
    events: EventRecorder,
    where: str,
) -> None:
    ids = [r.tool_call_id for r in results]
    if ids != [c.id for c in calls]:
        raise AssertionError(f"{where}: results are not in call order: {ids}")
    for index in range(1 + len(scenario.in_flight), len(calls)):
        if scenario.never.count and scenario.never_started_after_abort:
            raise AssertionError(
                f"{where}: a queued call started after the abort (no new call may start once "
                "the turn is aborted)"
            )
        if scenario.never.count:
            raise AssertionError(
                f"{where}: a queued call started before the abort, ahead of or beside the "
                "in-flight calls (calls must start in call order, within tool_concurrency)"
            )
        expect_blocked(
            results[index],
            call=calls[index],
            reason="aborted",
            events=events,
            canary=scenario.never,
            why=f"{where}: call {calls[index].id!r} was still queued when the turn was aborted",
        )
    if results[0].error is not None or scenario.fast.count != 1:
        raise AssertionError(
            f"{where}: the completed call 'fast' must keep its result, got "
            f"{describe_result(results[0])}"
        )
    for offset, name in enumerate(scenario.in_flight, start=1):
        result, state = results[offset], scenario.handlers[name]
        if not state.observed_abort:
            raise AssertionError(
                f"{where}: the in-flight {name!r} handler never saw context.signal.aborted"
            )
        code = result.error.code if result.error is not None else None
        if code != "aborted":
            raise AssertionError(
                f"{where}: the unfinished {name!r} call must get an 'aborted' result, got "
                f"{describe_result(result)}"
            )


async def _pre_aborted(subjects: ConformanceSubjects, concurrency: int) -> None:
    canary = Canary("a handler of an already-aborted turn")
    controller = AbortController()
    controller.abort("aborted before the turn")
    calls = [ToolCall(id=f"pre-{i}", name="work", arguments={}) for i in range(3)]
    events = EventRecorder()
    results: Any = await subjects.dispatch_batch(
        calls,
        tool_concurrency=concurrency,
        signal=controller.signal,
        registry=ToolRegistry([canary_tool("work", canary)]),
        emit=events,
    )
    for call, result in zip(calls, results, strict=True):
        expect_blocked(
            result, call=call, reason="aborted", events=events, canary=canary,
            why="the turn's signal was aborted before it started",
        )  # fmt: skip


@conformance_row("6")
async def parallel_abort_mid_turn(subjects: ConformanceSubjects) -> None:
    """Parallel abort: nothing new starts, in-flight calls see it, everyone gets a result."""
    await _run_scenario(subjects, concurrency=2, in_flight=("honour", "ignore"))
    await _pre_aborted(subjects, concurrency=3)


@conformance_row("E2")
async def sequential_abort(subjects: ConformanceSubjects) -> None:
    """Row 6's guarantees with concurrency 1, for a handler that ignores and one that honours."""
    await _run_scenario(subjects, concurrency=1, in_flight=("ignore",))
    await _run_scenario(subjects, concurrency=1, in_flight=("honour",))
    await _pre_aborted(subjects, concurrency=1)
