"""prism-dbos as core's step hook: core's batch runner and agent loop run every call; the hook
records each one as DBOS steps (``prism.core.lowlevel.StepHook``).

Per batch: step ids are reserved in call order before any call runs, so a replay meets the same
ids whatever order the calls finished in. Approvals are awaited (in call order) before the
first call that may run. At-most-once needs a record before a side-effecting handler starts:
the batch's *anchor*, the last recorded step before its first call — the model request that
produced the calls (agent loop, no approval waited), else one ``started`` marker per batch.
With a queue, every workflow operation of the batch (enqueue, collect) happens in one fixed
order whatever order core's workers reach them, for the same reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from dbos import DBOS, StepReservation
from prism.core import AbortSignal, ErrorInfo, ToolCall, ToolResult
from prism.core.lowlevel import BatchSteps, CallUnit

from ._approval import AWAITING_APPROVAL_EVENT, await_decision
from ._call import (
    OUTCOME_UNKNOWN,
    OUTCOME_UNKNOWN_MESSAGE,
    PIPELINE_STEP,
    CallSpec,
    StepRunner,
    mark,
    needs_marker,
)
from ._codec import Plain, decode_result, encode_call, encode_result
from ._ledger import CALL_KEY, call_key
from ._queue import call_workflow, collect, plan_of, register_tool_queue
from ._toolset import DurableToolset

__all__ = ["DurableSteps"]


Preceding = Callable[[], "bool | None"]
"""Whether the step recorded just before a batch's calls ran in this attempt (``True``), was
replayed from an earlier one (``False``), or is not known (``None``: the batch records its own
``started`` marker)."""


def _unknown() -> bool | None:
    return None


class DurableSteps:
    """The step hook of one durable turn or run: the tool set, the ids, the batch's signal and
    what it knows of the step recorded just before each batch (``preceding``)."""

    def __init__(
        self,
        toolset: DurableToolset,
        session_id: str,
        run_id: str,
        signal: AbortSignal,
        preceding: Preceding = _unknown,
    ) -> None:
        self.toolset = toolset
        self.session_id = session_id
        self.run_id = run_id
        self.signal = signal
        self.preceding = preceding

    async def open_batch(self, calls: Sequence[ToolCall]) -> BatchSteps:
        """Reserve this batch's step ids (no database write) and plan its calls."""
        ts = self.toolset
        turn = DBOS.reserve_step().step_id  # unique in the run, the same on replay
        specs = [
            CallSpec(ts.name, self.session_id, self.run_id, {"call": encode_call(c)}) for c in calls
        ]
        exclusive = any(_exclusive(ts, c) for c in calls)
        limit = 1 if exclusive else min(ts.tool_concurrency, len(calls))
        if ts.queue is not None:
            return _QueuedBatch(ts, specs, limit, turn, self.signal)
        return _LocalBatch(ts, specs, limit, turn, self.preceding())


def _exclusive(ts: DurableToolset, call: ToolCall) -> bool:
    """Core's rule, exactly (the fixed order of queued operations depends on the same limit):
    an exclusive tool, or a name that cannot be looked up."""
    try:
        tool = ts.tool(call.name)
    except Exception:
        return True
    return tool is not None and tool.exclusive is True


def _reserved(reservation: StepReservation) -> Any:
    async def run(name: str, fn: Any, *args: Any) -> Any:
        return await reservation.run_async({"name": name}, fn, *args)

    return run


def _encoded(
    outcome: Callable[[], Awaitable[ToolResult]], key: str, started: Callable[[], None]
) -> Callable[[], Coroutine[Any, Any, Plain]]:
    async def body() -> Plain:
        started()  # the step runs here: no earlier attempt recorded it
        token = CALL_KEY.set(key)  # the call's ledger rows get ids derived from ``key``
        try:
            return encode_result(await outcome())
        finally:
            CALL_KEY.reset(token)

    return body


class _Batch:
    """What local and queued batches share: reserved pipeline steps, the approval gate."""

    def __init__(self, ts: DurableToolset, specs: list[CallSpec], limit: int, turn: int) -> None:
        self.ts = ts
        self.specs = specs
        self.limit = limit
        self.turn = turn
        self.pipelines = [DBOS.reserve_step() for _ in specs]
        self.used = [False] * len(specs)
        self.replayed: list[bool | None] = [None] * len(specs)
        """Per call: its pipeline step was recorded by an earlier attempt (``None``: not known
        yet — the step has not begun in this attempt)."""
        self.learned = [asyncio.Event() for _ in specs]
        self.gate = asyncio.Lock()
        self.opened = False

    def _learn(self, index: int, replayed: bool) -> None:
        if self.replayed[index] is None:
            self.replayed[index] = replayed
            self.learned[index].set()

    async def record(self, index: int, outcome: Callable[[], Awaitable[ToolResult]]) -> ToolResult:
        """Run ``outcome`` as the call's pipeline step (or replay it): the recorded result."""
        key = call_key(self.specs[index].run_id, self.turn, index)
        body = _encoded(outcome, key, lambda: self._learn(index, False))
        if self.used[index]:  # cancelled mid-step by an abort: its leftover result is new
            recorded: Plain = await DBOS.run_step_async({"name": PIPELINE_STEP}, body)
        else:
            self.used[index] = True
            recorded = await self.pipelines[index].run_async({"name": PIPELINE_STEP}, body)
        self._learn(index, True)  # no effect when the step ran here
        return decode_result(recorded)

    async def open_gate(self) -> None:
        """Once per batch, before its first call that may run: approvals, then ``opened``."""
        async with self.gate:
            if self.opened:
                return
            approval = self.ts.approval
            waited = False
            if approval is not None:
                for index, spec in enumerate(self.specs):
                    name = spec.call["name"]
                    if approval.needs_approval(name, self.ts.tool(name)):
                        waited = True
                        plan = {"call": spec.call}
                        spec.denial = await await_decision(plan, approval, self.turn, index)
                if waited:
                    await DBOS.set_event_async(AWAITING_APPROVAL_EVENT, None)
            await self.opened_gate(waited=waited)
            self.opened = True

    async def opened_gate(self, *, waited: bool) -> None:
        """What a batch does once its approvals are in (``waited``: some call waited for one);
        nothing by default."""

    async def run(self, unit: CallUnit) -> ToolResult:
        """The unit's recorded result (core calls this for every call of the batch)."""
        i = unit.index
        if unit.refused:  # tool_call middleware failed, abort, or beyond the round limit
            return await self.record(i, unit.run)
        await self.open_gate()
        denial = self.specs[i].denial
        if denial is not None:
            return await self.record(i, lambda: unit.block("permission_denied", denial))
        return await self.execute(i, unit)

    async def execute(self, index: int, unit: CallUnit) -> ToolResult:
        raise NotImplementedError


class _LocalBatch(_Batch):
    """Calls run in this process. A side-effecting call must not run again if an earlier
    attempt may have started it; what tells is the batch's anchor (see the module docstring).
    An anchor this attempt recorded means no call of the batch ran before; a replayed one
    means the first ``limit`` calls may have, and call ``i >= limit`` may have only if the
    earlier attempt had recorded ``i - limit + 1`` of the calls before it (core starts call
    ``i`` when that many finished), which this attempt sees as replayed pipeline steps."""

    def __init__(
        self,
        ts: DurableToolset,
        specs: list[CallSpec],
        limit: int,
        turn: int,
        preceding: bool | None,
    ) -> None:
        super().__init__(ts, specs, limit, turn)
        self.needs = [needs_marker(spec) for spec in specs]
        self.preceding = preceding
        marker = DBOS.reserve_step() if any(self.needs) else None
        self.marker: StepRunner | None = None if marker is None else _reserved(marker)
        self.anchor_replayed = False

    async def opened_gate(self, *, waited: bool) -> None:
        if self.marker is None:
            return
        if self.preceding is None or waited:  # no recorded step just before the calls
            self.anchor_replayed = await mark(self.marker)
        else:
            self.anchor_replayed = not self.preceding

    async def _may_have_started(self, index: int) -> bool:
        if not (self.needs[index] and self.anchor_replayed):
            return False
        if index < self.limit:
            return True
        for event in self.learned[:index]:
            await event.wait()  # each earlier call's step is replayed or has begun here
        replayed = sum(bool(r) for r in self.replayed[:index])
        return replayed >= index - self.limit + 1

    async def execute(self, index: int, unit: CallUnit) -> ToolResult:
        if await self._may_have_started(index):
            unknown = ErrorInfo(
                code=OUTCOME_UNKNOWN, name="OutcomeUnknown", message=OUTCOME_UNKNOWN_MESSAGE
            )
            return await self.record(index, lambda: unit.fail(unknown))
        return await self.record(index, unit.run)


class _QueuedBatch(_Batch):
    """Calls run on queue workers; enqueues and collections happen in one fixed order:
    the first ``limit`` enqueues, then collect 0, enqueue ``limit``, collect 1, ..."""

    def __init__(
        self, ts: DurableToolset, specs: list[CallSpec], limit: int, turn: int, signal: AbortSignal
    ) -> None:
        super().__init__(ts, specs, limit, turn)
        self.signal = signal
        order: list[tuple[str, int]] = []
        ahead = 0
        for i in range(len(specs)):
            while ahead < len(specs) and ahead < i + limit:
                order.append(("enqueue", ahead))
                ahead += 1
            order.append(("collect", i))
        self.order = order
        self.position = 0
        self.done: set[tuple[str, int]] = set()
        self.begun: set[int] = set()
        self.changed = asyncio.Condition()

    def _skippable(self, op: tuple[str, int]) -> bool:
        index = op[1]
        return op in self.done or (index not in self.begun and self.signal.aborted)

    async def _wait_turn(self, op: tuple[str, int]) -> None:
        async with self.changed:
            while True:
                while self.position < len(self.order) and self._skippable(
                    self.order[self.position]
                ):
                    self.position += 1
                if self.position < len(self.order) and self.order[self.position] == op:
                    return
                await self.changed.wait()

    async def _finish(self, *ops: tuple[str, int]) -> None:
        async with self.changed:
            self.done.update(ops)
            self.changed.notify_all()

    async def run(self, unit: CallUnit) -> ToolResult:
        self.begun.add(unit.index)
        try:
            if unit.refused or self.specs[unit.index].denial is not None:
                await self._finish(("enqueue", unit.index), ("collect", unit.index))
            return await super().run(unit)
        finally:
            await self._finish(("enqueue", unit.index), ("collect", unit.index))

    async def execute(self, index: int, unit: CallUnit) -> ToolResult:
        spec, options = self.specs[index], self.ts.queue
        assert options is not None
        await self._wait_turn(("enqueue", index))
        queue = await DBOS.retrieve_queue_async(options.name) or await register_tool_queue(options)
        key, reply = f"{self.turn}:{index}", options.result_deadline_seconds is not None
        handle = await queue.enqueue_async(
            call_workflow, spec.toolset, spec.session_id, spec.run_id, plan_of(spec), key, reply
        )
        await self._finish(("enqueue", index))
        await self._wait_turn(("collect", index))
        return await collect(spec, handle, options, key)
