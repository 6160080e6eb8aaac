"""Where dispatch reports to: event sinks and ledgers, both redacted and never fatal."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from . import _backend
from ._fastinit import positional_factory
from ._ledger import RecordStatus, RunLedger, ToolCallRecord, new_record_id
from ._redact import Redactor
from ._types import ToolCall, ToolResult
from ._weight import LOOP_WEIGHT, heavier_than
from .events import AgentEvent, EventSink

__all__ = ["CallReporter"]

_make_record = positional_factory(
    ToolCallRecord,
    ("id", "session_id", "run_id", "tool_call_id", "name", "arguments", "status", "reason",
     "result", "started_at", "finished_at"),
)  # fmt: skip


def _warn(message: str, *args: object) -> None:
    import logging  # only on the rare failure path: keeps import prism.core light

    logging.getLogger("prism.core").warning(message, *args, exc_info=True)


@dataclass(slots=True)
class CallReporter:
    """Reports one call's life: events to ``emit``, rows to ``ledger``, through ``redactor``.

    ``heavy``: the call's arguments or result weigh more than ``LOOP_WEIGHT``, so the redactor
    (which walks everything it is given) runs in a worker thread for this call's reports.
    """

    session_id: str
    run_id: str
    emit: EventSink | None
    ledger: RunLedger | None
    redactor: Redactor | None
    started: float
    started_at: datetime | None = None
    started_execution: bool = False
    heavy: bool = False
    shown: tuple[ToolCall, ToolCall] | None = None
    """A heavy call and its redacted copy: redacted once, reused by every event and row."""

    @classmethod
    def begin(
        cls,
        session_id: str,
        run_id: str,
        emit: EventSink | None,
        ledger: RunLedger | None,
        redactor: Redactor | None,
    ) -> CallReporter:
        """Start the clock for one call."""
        started_at = datetime.now(UTC) if ledger is not None else None
        return cls(session_id, run_id, emit, ledger, redactor, time.perf_counter(), started_at)

    def elapsed(self) -> float:
        """Seconds since ``begin``."""
        return time.perf_counter() - self.started

    def send(self, event: AgentEvent) -> Awaitable[None] | None:
        """Send ``event`` (redacted) to the sink; returns an awaitable only for async sinks.

        A raising sink is logged and ignored. Sync-first so the common path makes no coroutine.
        """
        if self.redactor is not None:
            if self.heavy:
                return self._send_heavy(event)
            event = self.redactor.redact(event)
        return self._emit(event)

    def _emit(self, event: AgentEvent) -> Awaitable[None] | None:
        try:
            outcome = self.emit(event)  # type: ignore[misc]
        except Exception:
            _warn("event sink raised on %s; ignored", event.type)
            return None
        if hasattr(outcome, "__await__"):
            return _await_sink(outcome, event)  # type: ignore[arg-type]
        return None

    async def _send_heavy(self, event: AgentEvent) -> None:
        call = getattr(event, "call", None)
        if type(call) is ToolCall:
            event = dataclasses.replace(event, call=await self._shown(call))
        redact = self.redactor.redact  # type: ignore[union-attr]
        pending = self._emit(await _backend.to_thread(lambda: redact(event)))
        if pending is not None:
            await pending

    async def _shown(self, call: ToolCall) -> ToolCall:
        """``call`` redacted in a worker thread, once: a redactor that changes every leaf
        would otherwise build a new copy of large arguments for each event and row (and
        the garbage collector would scan each copy, holding the GIL)."""
        shown = self.shown
        if shown is not None and shown[0] is call:
            return shown[1]
        redact = self.redactor.redact  # type: ignore[union-attr]
        redacted = await _backend.to_thread(lambda: redact(call))
        self.shown = (call, redacted)
        return redacted

    def weigh_arguments(self, call: ToolCall) -> None:
        """Mark the call heavy when its arguments are (only matters with a redactor)."""
        if not self.heavy:
            self.heavy = heavier_than(call.arguments, LOOP_WEIGHT)

    async def redacted(self, result: ToolResult) -> ToolResult:
        """``result`` through the redactor (which must be set): in a worker thread when the
        call's arguments or this result are heavy, and the call is then heavy from here on."""
        redact = self.redactor.redact  # type: ignore[union-attr]
        if not self.heavy:
            self.heavy = heavier_than(result, LOOP_WEIGHT)
            if not self.heavy:
                return redact(result)
        return await _backend.to_thread(lambda: redact(result))

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
            result = await self.redacted(result)
        if self.emit is not None:
            pending = self.send(event(result))
            if pending is not None:
                await pending
        pending = self.record(call, status, reason=reason, result=result)
        if pending is not None:
            await pending
        return result

    def record(
        self,
        call: ToolCall,
        status: RecordStatus,
        *,
        reason: str | None = None,
        result: ToolResult | None = None,
    ) -> Awaitable[None] | None:
        """Append a ledger row (redacted); a raising ledger is logged and ignored. Returns an
        awaitable only when the row must be redacted off the loop (``heavy``)."""
        if status == "started":
            self.started_execution = True
        if self.ledger is None:
            return None
        assert self.started_at is not None
        row = _make_record(
            new_record_id(), self.session_id, self.run_id, call.id, call.name, call.arguments,
            status, reason, result, self.started_at,
            None if status == "started" else datetime.now(UTC),
        )  # fmt: skip
        if self.redactor is not None:
            if self.heavy:
                return self._append_heavy(row, call)
            row = self.redactor.redact(row)
        self._append(row)
        return None

    def _append(self, row: ToolCallRecord) -> None:
        try:
            self.ledger.append(row)  # type: ignore[union-attr]
        except Exception:
            _warn("run ledger raised on append; ignored")

    async def _append_heavy(self, row: ToolCallRecord, call: ToolCall) -> None:
        row = dataclasses.replace(row, arguments=(await self._shown(call)).arguments)
        redact = self.redactor.redact  # type: ignore[union-attr]
        self._append(await _backend.to_thread(lambda: redact(row)))


async def _await_sink(outcome: Awaitable[None], event: AgentEvent) -> None:
    try:
        await outcome
    except Exception:
        _warn("event sink raised on %s; ignored", event.type)
