"""Batch dispatch: one model turn's calls, bounded in parallel, results in call order."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, Unpack, final

from . import _backend
from ._abort import NEVER_ABORTED, AbortController, AbortSignal
from ._dispatch import run_call_middleware, run_dispatch
from ._dispatch_options import DispatchOptions, DispatchSettings
from ._hostile import read_call, safe_call
from ._outcomes import (
    aborted_outcome,
    failed_outcome,
    middleware_failed_outcome,
    unprocessable_outcome,
)
from ._reporting import CallReporter
from ._steps import BatchSteps, CallUnit, StepHook, check_step_hook
from ._types import ErrorInfo, ToolCall, ToolDefinition, ToolExecutionContext, ToolResult
from .options import check_choice, check_count, check_seconds

__all__ = [
    "LoopOptions",
    "LoopStrategy",
    "dispatch_tool_calls_in_order",
    "resolve_tool_concurrency",
]

MAX_TOOL_CONCURRENCY = 64
MAX_ABORT_GRACE_SECONDS = 600.0

LoopStrategy: TypeAlias = Literal["single_shot"]
"""How the agent loop runs: one value (today the only one is ``"single_shot"``: generate,
dispatch the turn's calls, repeat)."""
_STRATEGIES: tuple[LoopStrategy, ...] = ("single_shot",)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LoopOptions:
    """How the agent loop runs a turn: the strategy and how many tool calls run at once."""

    strategy: LoopStrategy = "single_shot"
    tool_concurrency: int = 1

    def __post_init__(self) -> None:
        check_choice("LoopOptions.strategy", self.strategy, _STRATEGIES)
        concurrency = self.tool_concurrency
        check_count("LoopOptions.tool_concurrency", concurrency, cap=MAX_TOOL_CONCURRENCY)


def resolve_tool_concurrency(run_loop: LoopOptions | None, agent_loop: LoopOptions | None) -> int:
    """Run options win over agent options; the default is one call at a time."""
    for loop in (run_loop, agent_loop):
        if loop is not None:
            return loop.tool_concurrency
    return 1


@dataclass(slots=True)
class _Slot:
    """One call of the batch: its post-middleware call, reporter, and outcome."""

    call: ToolCall
    report: CallReporter
    middleware_error: Exception | None = None
    result: ToolResult | None = None
    unreadable: Exception | None = None
    """What reading the call's attributes raised (the call is then blocked)."""


async def dispatch_tool_calls_in_order(
    calls: Sequence[ToolCall],
    *,
    tool_concurrency: int = 1,
    signal: AbortSignal | None = None,
    abort_grace_seconds: float = 5.0,
    step_hook: StepHook | None = None,
    **settings: Unpack[DispatchSettings],
) -> tuple[ToolResult, ...]:
    """Dispatch ``calls`` with at most ``tool_concurrency`` in flight; results in call order.

    A turn that calls an ``exclusive`` tool (judged after ``tool_call`` middleware) runs one
    call at a time. Once ``signal`` aborts, nothing new starts; running calls get
    ``abort_grace_seconds`` to return, then are cancelled; every call without a completed
    result gets an ``aborted`` result. No task outlives the batch. ``settings`` are the gates
    of ``dispatch_tool_call``.
    """
    check_count("tool_concurrency", tool_concurrency, cap=MAX_TOOL_CONCURRENCY)
    grace = check_seconds("abort_grace_seconds", abort_grace_seconds, cap=MAX_ABORT_GRACE_SECONDS)
    check_step_hook("step_hook", step_hook)
    opts = DispatchOptions.of(settings)
    base = settings.get("context")
    batch_signal = _batch_signal(signal, base)
    slots = await _prepare(calls, opts, base)
    if not slots:
        return ()
    exclusive = any(_is_exclusive(opts, slot.call) for slot in slots)
    limit = 1 if exclusive else min(tool_concurrency, len(slots))
    steps = None if step_hook is None else await step_hook.open_batch([s.call for s in slots])
    await _run_slots(slots, opts, base, batch_signal, limit, grace, steps)
    return tuple(
        [await _finish(i, slot, opts, batch_signal, steps) for i, slot in enumerate(slots)]
    )


def _batch_signal(signal: AbortSignal | None, base: ToolExecutionContext | None) -> AbortSignal:
    own = base.signal if base is not None else NEVER_ABORTED
    if signal is None or signal is own:
        return own
    if own is NEVER_ABORTED:
        return signal
    return AbortSignal.any(signal, own)


async def _prepare(
    calls: Sequence[ToolCall], opts: DispatchOptions, base: ToolExecutionContext | None
) -> list[_Slot]:
    """Run ``tool_call`` middleware for every call first: exclusivity needs the final names."""
    for index, call in enumerate(calls):
        if not isinstance(call, ToolCall):
            raise TypeError(
                f"dispatch_tool_calls_in_order.calls[{index}] must be a ToolCall, got {call!r:.200}"
            )
    slots = []
    for call in calls:
        report = opts.reporter(base)
        try:
            call = read_call(call)  # a subclass's properties run once, here, guarded
        except Exception as exc:
            slots.append(_Slot(safe_call(call), report, unreadable=exc))
            continue
        try:
            slots.append(_Slot(await run_call_middleware(call, opts.middleware), report))
        except Exception as exc:
            slots.append(_Slot(call, report, middleware_error=exc))
    return slots


def _is_exclusive(opts: DispatchOptions, call: ToolCall) -> bool:
    """Whether ``call`` names an exclusive tool; a name that cannot be looked up counts as
    exclusive (the call itself is blocked later; the turn runs one call at a time)."""
    try:
        tool = opts.registry.get(call.name)
    except Exception:
        return True
    return tool is not None and tool.exclusive is True


async def _run_slots(
    slots: list[_Slot],
    opts: DispatchOptions,
    base: ToolExecutionContext | None,
    signal: AbortSignal,
    limit: int,
    grace: float,
    steps: BatchSteps | None,
) -> None:
    """Workers pull calls in order; a watcher cancels stragglers ``grace`` after an abort."""
    pending = iter(enumerate(slots))
    in_flight: dict[int, _backend.MoveOnScope] = {}
    done = AbortController()

    async def worker() -> None:
        for index, slot in pending:
            if signal.aborted:
                return
            async with _backend.move_on_after() as scope:
                in_flight[id(slot)] = scope
                try:
                    if steps is None:
                        slot.result = await _run_one(slot, opts, base, signal)
                    else:
                        run = functools.partial(_run_one, slot, opts, base, signal)
                        unit = _unit(index, slot, opts, run, slot.middleware_error is not None)
                        slot.result = await steps.run(unit)
                finally:
                    del in_flight[id(slot)]

    async def watcher() -> None:
        await AbortSignal.any(signal, done.signal).wait()
        if done.signal.aborted:
            return
        async with _backend.move_on_after(grace):
            await done.signal.wait()
        for scope in list(in_flight.values()):
            scope.cancel()

    async with _backend.task_group() as outer:
        if signal is not NEVER_ABORTED:
            outer.start_soon(watcher)
        async with _backend.task_group() as workers:
            for _ in range(limit):
                workers.start_soon(worker)
        done.abort()


def _slot_context(
    base: ToolExecutionContext | None, call: ToolCall, signal: AbortSignal
) -> ToolExecutionContext:
    if base is None:
        return ToolExecutionContext(session_id="", run_id="", tool_call_id=call.id, signal=signal)
    return dataclasses.replace(base, tool_call_id=call.id, signal=signal)


async def _run_one(
    slot: _Slot, opts: DispatchOptions, base: ToolExecutionContext | None, signal: AbortSignal
) -> ToolResult:
    """One call's result; never raises for its contents (a worker that raised would lose the
    results of the whole batch)."""
    try:
        if slot.unreadable is not None:
            return await unprocessable_outcome(slot.report, slot.call, slot.unreadable)
        if slot.middleware_error is not None:
            return await middleware_failed_outcome(slot.report, slot.call, slot.middleware_error)
        context = _slot_context(base, slot.call, signal)
        return await run_dispatch(slot.call, opts, slot.report, context, call_middleware_done=True)
    except Exception as exc:
        return await unprocessable_outcome(slot.report, slot.call, exc)


def _tool(opts: DispatchOptions, call: ToolCall) -> ToolDefinition | None:
    try:
        return opts.registry.get(call.name)
    except Exception:
        return None


def _unit(
    index: int,
    slot: _Slot,
    opts: DispatchOptions,
    run: Callable[[], Awaitable[ToolResult]],
    refused: bool,
) -> CallUnit:
    return CallUnit(slot.call, index, _tool(opts, slot.call), refused, slot.report, run)


async def _finish(
    index: int,
    slot: _Slot,
    opts: DispatchOptions,
    signal: AbortSignal,
    steps: BatchSteps | None,
) -> ToolResult:
    """The slot's result, or an ``aborted`` one for a call that never completed."""
    if slot.result is not None:
        return slot.result
    if steps is not None:
        aborted = functools.partial(_safe_aborted, slot, signal)
        return await steps.run(_unit(index, slot, opts, aborted, True))
    return await _safe_aborted(slot, signal)


async def _safe_aborted(slot: _Slot, signal: AbortSignal) -> ToolResult:
    try:
        return await _aborted(slot, signal)
    except Exception as exc:
        return await unprocessable_outcome(slot.report, slot.call, exc)


async def _aborted(slot: _Slot, signal: AbortSignal) -> ToolResult:
    reason = signal.reason
    if slot.report.started_execution:
        suffix = f": {reason}" if reason else ""
        error = ErrorInfo(
            code="aborted", name="Cancelled", message=f"Tool call cancelled after abort{suffix}"
        )
        return await failed_outcome(slot.report, slot.call, error)
    return await aborted_outcome(slot.report, slot.call, reason)
