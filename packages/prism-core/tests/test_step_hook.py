"""The step hook of ``prism.core.lowlevel``: every call of a batch (and of an agent turn,
round-limit refusals included) passes through it once, as a unit it may run, fail, block or
replay; results stay in call order and events and ledger rows come from the unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from prism.core import (
    AbortController,
    ErrorInfo,
    InMemoryRunLedger,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import Agent, ModelResponse, RunLimits, RunOptions
from prism.core.lowlevel import BatchSteps, CallUnit, StepHook
from prism.core.testing import ScriptedProvider

pytestmark = pytest.mark.anyio


class Recorder:
    """A step hook that records each unit's result by (batch, index) and replays it; it fails
    the calls named in ``lost`` instead of running them."""

    def __init__(self, lost: Sequence[str] = ()) -> None:
        self.batches: list[list[str]] = []
        self.units: list[tuple[int, str, int, bool]] = []
        self.recorded: dict[tuple[int, int], ToolResult] = {}
        self.lost = set(lost)

    async def open_batch(self, calls: Sequence[ToolCall]) -> BatchSteps:
        self.batches.append([c.id for c in calls])
        return _Batch(self, len(self.batches) - 1)


class _Batch:
    def __init__(self, recorder: Recorder, batch: int) -> None:
        self.recorder = recorder
        self.batch = batch

    async def run(self, unit: CallUnit) -> ToolResult:
        rec = self.recorder
        rec.units.append((self.batch, unit.call.id, unit.index, unit.refused))
        key = (self.batch, unit.index)
        if key not in rec.recorded:
            if unit.call.id in rec.lost:
                result = await unit.fail(ErrorInfo(code="outcome_unknown", message="lost"))
            else:
                result = await unit.run()
            rec.recorded[key] = result
        return rec.recorded[key]


def tools(ran: list[str]) -> list[ToolDefinition]:
    async def work(args: Any, ctx: ToolExecutionContext) -> str:
        ran.append(ctx.tool_call_id)
        return f"did {ctx.tool_call_id}"

    return [ToolDefinition(name="work", execute=work)]


def calls(*ids: str) -> list[ToolCall]:
    return [ToolCall(id=i, name="work", arguments={}) for i in ids]


async def test_every_call_passes_through_the_hook_once_in_call_order() -> None:
    ran: list[str] = []
    hook: StepHook = Recorder(lost=["b"])
    ledger = InMemoryRunLedger()
    results = await dispatch_tool_calls_in_order(
        [*calls("a", "b", "c"), ToolCall(id="d", name="nope", arguments={})],
        tool_concurrency=3, step_hook=hook, registry=ToolRegistry(tools(ran)),
        gates=ToolGates(ledger=ledger),
    )  # fmt: skip
    assert isinstance(hook, Recorder)
    assert hook.batches == [["a", "b", "c", "d"]]
    assert sorted(u[2] for u in hook.units) == [0, 1, 2, 3]
    assert [r.tool_call_id for r in results] == ["a", "b", "c", "d"]
    assert results[1].error is not None and results[1].error.code == "outcome_unknown"
    assert results[3].error is not None and results[3].error.code == "unknown_tool"
    assert sorted(ran) == ["a", "c"]
    terminal = [(r.tool_call_id, r.status) for r in ledger.records if r.status != "started"]
    assert sorted(terminal) == [("a", "finished"), ("b", "error"), ("c", "finished"),
                                ("d", "blocked")]  # fmt: skip


async def test_a_replaying_hook_returns_recorded_results_without_running_again() -> None:
    ran: list[str] = []
    hook = Recorder()
    registry = ToolRegistry(tools(ran))
    first = await dispatch_tool_calls_in_order(calls("a", "b"), step_hook=hook, registry=registry)
    hook.batches.clear()
    hook.recorded = {(1, i): r for (_, i), r in hook.recorded.items()}  # the next batch is 1
    hook.batches.append([])
    again = await dispatch_tool_calls_in_order(calls("a", "b"), step_hook=hook, registry=registry)
    assert again == first and ran == ["a", "b"]


async def test_calls_an_abort_left_unstarted_still_pass_through_the_hook() -> None:
    controller = AbortController()
    ran: list[str] = []

    async def stop(args: Any, ctx: ToolExecutionContext) -> str:
        controller.abort("enough")
        return "stopped"

    registry = ToolRegistry([*tools(ran), ToolDefinition(name="stop", execute=stop)])
    hook = Recorder()
    results = await dispatch_tool_calls_in_order(
        [ToolCall(id="s", name="stop", arguments={}), *calls("a")],
        signal=controller.signal, step_hook=hook, registry=registry,
    )  # fmt: skip
    assert [u[1:] for u in hook.units] == [("s", 0, False), ("a", 1, True)]
    assert results[1].error is not None and results[1].error.code == "aborted"
    assert ran == []


async def test_the_agent_loop_runs_turns_and_round_limit_refusals_through_the_hook() -> None:
    ran: list[str] = []
    provider = ScriptedProvider(
        [
            ModelResponse(tool_calls=tuple(calls("a", "b"))),
            ModelResponse(tool_calls=tuple(calls("c"))),
        ]
    )
    agent = Agent(
        provider=provider, model="m", tools=tools(ran), limits=RunLimits(max_tool_rounds=1)
    )
    ledger_runs: list[str] = []
    hook = Recorder()

    async def emit(event: Any) -> None:
        ledger_runs.append(event.run_id)

    result = await agent.run("go", options=RunOptions(step_hook=hook, run_id="run-7"), emit=emit)
    assert result.finish_reason == "tool_round_limit"
    assert hook.batches == [["a", "b"], ["c"]]
    assert [u[1:] for u in hook.units if u[0] == 1] == [("c", 0, True)]
    assert ran == ["a", "b"]
    assert set(ledger_runs) == {"run-7"}


def test_a_hook_without_open_batch_or_an_empty_run_id_is_refused() -> None:
    with pytest.raises(TypeError, match=r"RunOptions.step_hook must be an object with an async"):
        RunOptions(step_hook=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"RunOptions.run_id must be a non-empty str"):
        RunOptions(run_id="")
