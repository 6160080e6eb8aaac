"""The step hook: how a batch's calls are run, one unit at a time (e.g. each as a durable step).

Core's batch runner and agent loop hand each call to the hook as a ``CallUnit``; the hook
decides where its outcome comes from: ``run()`` (the rest of the pipeline), ``fail(error)`` or
``block(reason, message)`` (concluded without running, with its event and ledger row). A hook
that records units can replay them without running them again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, Unpack

from ._dispatch import run_dispatch
from ._dispatch_options import DispatchOptions, DispatchSettings
from ._outcomes import blocked_outcome, failed_outcome
from ._reporting import CallReporter
from ._types import ErrorInfo, ToolCall, ToolDefinition, ToolResult
from .events import BlockedReason

__all__ = [
    "BatchSteps",
    "CallUnit",
    "StepHook",
    "check_step_hook",
    "prepare_call",
]


class CallUnit:
    """One call of a batch as the step hook sees it."""

    __slots__ = ("_report", "_run", "call", "index", "refused", "tool")

    def __init__(
        self,
        call: ToolCall,
        index: int,
        tool: ToolDefinition | None,
        refused: bool,
        report: CallReporter,
        run: Callable[[], Awaitable[ToolResult]],
    ) -> None:
        self.call = call
        """The call after ``tool_call`` middleware."""
        self.index = index
        """Its position in the batch (results come back in this order)."""
        self.tool = tool
        """The tool its name resolves to now, if any (``read_only``/``idempotent`` hints)."""
        self.refused = refused
        """``True`` when ``run()`` cannot reach the handler (middleware failed, or aborted)."""
        self._report = report
        self._run = run

    async def run(self) -> ToolResult:
        """The rest of the pipeline (gates, handler, result middleware, event, ledger row);
        never raises for the call's contents."""
        return await self._run()

    async def fail(self, error: ErrorInfo) -> ToolResult:
        """Conclude the call with ``error`` without running it (a failed event and row)."""
        return await failed_outcome(self._report, self.call, error)

    async def block(self, reason: BlockedReason, message: str) -> ToolResult:
        """Conclude the call as refused for ``reason`` (a blocked event and row)."""
        return await blocked_outcome(self._report, self.call, reason, message)


class BatchSteps(Protocol):
    """The hook's view of one batch: runs each unit (``index`` is the unit's position)."""

    async def run(self, unit: CallUnit) -> ToolResult:
        """The unit's result: from ``unit.run()``, ``unit.fail``, ``unit.block``, or replayed."""
        ...


class StepHook(Protocol):
    """Given to ``dispatch_tool_calls_in_order(step_hook=...)`` or ``RunOptions.step_hook``."""

    async def open_batch(self, calls: Sequence[ToolCall]) -> BatchSteps:
        """Called once per batch, after ``tool_call`` middleware and before any call runs, with
        the final calls in order; may wait (e.g. for approvals)."""
        ...


def check_step_hook(where: str, hook: object) -> None:
    """Refuse a step hook without ``open_batch`` at once (not at the first tool call)."""
    if hook is not None and not callable(getattr(hook, "open_batch", None)):
        rule = "an object with an async open_batch(calls) method or None"
        raise TypeError(f"{where} must be {rule}, got {hook!r:.200}")


def prepare_call(call: ToolCall, **settings: Unpack[DispatchSettings]) -> CallUnit:
    """One call, after its ``tool_call`` middleware, as a unit outside any batch: ``run()``
    is the rest of ``dispatch_tool_call``'s pipeline under ``settings``."""
    opts = DispatchOptions.of(settings)
    context = settings.get("context")
    report = opts.reporter(context)

    async def run() -> ToolResult:
        return await run_dispatch(call, opts, report, context, call_middleware_done=True)

    try:
        tool = opts.registry.get(call.name)
    except Exception:
        tool = None
    return CallUnit(call, 0, tool, False, report, run)
