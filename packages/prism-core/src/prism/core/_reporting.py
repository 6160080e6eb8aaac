"""Where dispatch reports to: event sinks and ledgers, both redacted and never fatal."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ._fastinit import positional_factory
from ._ledger import RecordStatus, RunLedger, ToolCallRecord, new_record_id
from ._types import ToolCall, ToolResult, _no_progress
from .events import AgentEvent, EventSink, ToolExecutionProgress

if TYPE_CHECKING:
    from datetime import datetime

    from ._redact import Redactor

ProgressCallback = Callable[[float | None, str | None], Awaitable[None]]

__all__ = ["CallReporter"]

_make_record = positional_factory(
    ToolCallRecord,
    ("id", "session_id", "run_id", "tool_call_id", "name", "arguments", "status", "reason",
     "result", "started_at", "finished_at"),
)  # fmt: skip


class _UtcClock:
    """``now()`` is ``datetime.now(UTC)``; ``datetime`` is imported by the first call (the first
    ledger row), not by ``import prism.core``."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now: Callable[[], datetime] = self._first

    def _first(self) -> datetime:
        from datetime import UTC, datetime

        self.now = functools.partial(datetime.now, UTC)
        return self.now()


_CLOCK = _UtcClock()


def _warn(message: str, *args: object) -> None:
    import logging  # only on the rare failure path: keeps import prism.core light

    logging.getLogger("prism.core").warning(message, *args, exc_info=True)


class CallReporter:
    """Reports one call's life: events to ``emit``, rows to ``ledger``, through ``redactor``.

    Per-call mutable state (a plain slotted class: one is built for every dispatch).
    """

    __slots__ = (
        "emit", "ledger", "outer_progress", "progress_call", "redactor", "run_id", "session_id",
        "started", "started_at", "started_execution",
    )  # fmt: skip

    def __init__(
        self,
        session_id: str,
        run_id: str,
        emit: EventSink | None,
        ledger: RunLedger | None,
        redactor: Redactor | None,
    ) -> None:
        """Start the clock for one call."""
        self.session_id = session_id
        self.run_id = run_id
        self.emit = emit
        self.ledger = ledger
        self.redactor = redactor
        self.started_at: datetime | None = _CLOCK.now() if ledger is not None else None
        self.started = time.perf_counter()
        self.started_execution = False
        self.progress_call: ToolCall | None = None
        self.outer_progress: ProgressCallback = _no_progress

    def elapsed(self) -> float:
        """Seconds since the reporter was made."""
        return time.perf_counter() - self.started

    def send(self, event: AgentEvent) -> Awaitable[None] | None:
        """Send ``event`` (redacted) to the sink; returns an awaitable only for async sinks.

        A raising sink is logged and ignored. Sync-first so the common path makes no coroutine.
        """
        if self.redactor is not None:
            event = self.redactor.redact(event)
        try:
            outcome = self.emit(event)  # type: ignore[misc]
        except Exception:
            _warn("event sink raised on %s; ignored", event.type)
            return None
        if hasattr(outcome, "__await__"):
            return _await_sink(outcome, event)  # type: ignore[arg-type]
        return None

    async def event(self, event: AgentEvent) -> None:
        """Send ``event`` and await an async sink (no-op without a sink)."""
        if self.emit is not None:
            pending = self.send(event)
            if pending is not None:
                await pending

    async def conclude(
        self,
        call: ToolCall,
        result: ToolResult,
        status: RecordStatus,
        reason: str | None,
        event: Callable[[ToolResult], AgentEvent],
    ) -> ToolResult:
        """``result`` redacted, after its event (built from the redacted result) and ledger
        row: the one order every finished, failed or blocked call is reported in."""
        if self.redactor is not None:
            result = self.redactor.redact(result)
        if self.emit is not None:
            pending = self.send(event(result))
            if pending is not None:
                await pending
        self.record(call, status, reason, result)
        return result

    def record(
        self,
        call: ToolCall,
        status: RecordStatus,
        reason: str | None = None,
        result: ToolResult | None = None,
    ) -> None:
        """Append a ledger row (redacted); a raising ledger is logged and ignored."""
        if status == "started":
            self.started_execution = True
        ledger = self.ledger
        if ledger is None:
            return
        assert self.started_at is not None
        finished_at = None if status == "started" else _CLOCK.now()
        row = _make_record(
            new_record_id(), self.session_id, self.run_id, call.id, call.name, call.arguments,
            status, reason, result, self.started_at, finished_at,
        )  # fmt: skip
        if self.redactor is not None:
            row = self.redactor.redact(row)
        try:
            ledger.append(row)
        except Exception:
            _warn("run ledger raised on append; ignored")

    async def progress(self, value: float | None, message: str | None) -> None:
        """``context.progress`` of the call being reported: a progress event for
        ``progress_call``, then the caller's own ``outer_progress``."""
        if self.emit is not None and self.progress_call is not None:
            pending = self.send(
                ToolExecutionProgress(
                    session_id=self.session_id, run_id=self.run_id, call=self.progress_call,
                    progress=value, message=message,
                )
            )  # fmt: skip
            if pending is not None:
                await pending
        await self.outer_progress(value, message)


async def _await_sink(outcome: Awaitable[None], event: AgentEvent) -> None:
    try:
        await outcome
    except Exception:
        _warn("event sink raised on %s; ignored", event.type)
