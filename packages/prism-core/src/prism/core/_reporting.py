"""Where dispatch reports to: event sinks and ledgers, both redacted and never fatal."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from . import _on_demand
from ._types import ToolCall, ToolResult, _no_progress

if TYPE_CHECKING:  # for annotations only: ledger and events load with the first row or event
    from ._ledger import RecordStatus, RunLedger, ToolCallRecord
    from ._redact import Redactor
    from .events import AgentEvent, EventSink

ProgressCallback = Callable[[float | None, str | None], Awaitable[None]]

__all__ = ["CallReporter"]


def _warn(message: str, *args: object) -> None:
    import logging  # only on the rare failure path: keeps import prism.core light

    logging.getLogger("prism.core").warning(message, *args, exc_info=True)


class CallReporter:
    """Reports one call's life: events to ``emit``, rows to ``ledger``, through ``redactor``.

    Per-call mutable state (a plain slotted class: one is built for every dispatch).
    ``heavy``: the call's arguments or result weigh more than ``LOOP_WEIGHT``, so the redactor
    (which walks everything it is given) runs in a worker thread for this call's reports;
    ``shown`` is a heavy call and its redacted copy, redacted once for every event and row.
    """

    __slots__ = (
        "emit", "heavy", "ledger", "outer_progress", "progress_call", "redactor", "run_id",
        "session_id", "shown", "started", "started_at", "started_execution",
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
        self.started_at = time.time() if ledger is not None else 0.0
        self.started = time.perf_counter()
        self.started_execution = False
        self.progress_call: ToolCall | None = None
        self.outer_progress: ProgressCallback = _no_progress
        self.heavy = False
        self.shown: tuple[ToolCall, ToolCall] | None = None

    def elapsed(self) -> float:
        """Seconds since the reporter was made."""
        return time.perf_counter() - self.started

    def send(self, event: AgentEvent, *, redacted: bool = False) -> Awaitable[None] | None:
        """Send ``event`` (redacted unless it already is) to the sink; returns an awaitable only
        for async sinks. A raising sink is logged and ignored. Sync-first so the common path
        makes no coroutine."""
        if self.redactor is not None and not redacted:
            if self.heavy:
                return self._send_heavy(event)
            event = self.redactor.redact(event)
        try:
            outcome = self.emit(event)  # type: ignore[misc]
        except Exception:
            _warn("event sink raised on %s; ignored", event.type)
            return None
        if outcome is not None and hasattr(outcome, "__await__"):
            return _await_sink(outcome, event)
        return None

    async def _send_heavy(self, event: AgentEvent) -> None:
        call = getattr(event, "call", None)
        if type(call) is ToolCall:
            event = dataclasses.replace(event, call=await self._shown(call))
        redact = self.redactor.redact  # type: ignore[union-attr]
        pending = self.send(await _on_demand.to_thread(lambda: redact(event)), redacted=True)
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
        redacted = await _on_demand.to_thread(lambda: redact(call))
        self.shown = (call, redacted)
        return redacted

    def weigh_arguments(self, call: ToolCall) -> None:
        """Mark the call heavy when its arguments are (only matters with a redactor)."""
        if not self.heavy:
            self.heavy = _on_demand.heavier_than(call.arguments, _on_demand.LOOP_WEIGHT)

    async def redacted(self, result: ToolResult) -> ToolResult:
        """``result`` through the redactor (which must be set): in a worker thread when the
        call's arguments or this result are heavy, and the call is then heavy from here on."""
        redact = self.redactor.redact  # type: ignore[union-attr]
        if not self.heavy:
            self.heavy = _on_demand.heavier_than(result, _on_demand.LOOP_WEIGHT)
            if not self.heavy:
                return redact(result)
        return await _on_demand.to_thread(lambda: redact(result))

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
        pending = self.record(call, status, reason, result)
        if pending is not None:
            await pending
        return result

    def record(
        self,
        call: ToolCall,
        status: RecordStatus,
        reason: str | None = None,
        result: ToolResult | None = None,
    ) -> Awaitable[None] | None:
        """Append a ledger row (redacted); a raising ledger is logged and ignored. Returns an
        awaitable only when the row must be redacted off the loop (``heavy``)."""
        if status == "started":
            self.started_execution = True
        ledger = self.ledger
        if ledger is None:
            return None
        fields = (
            _on_demand.next_row_number(), self.session_id, self.run_id, call.id, call.name,
            call.arguments, status, reason, result, self.started_at,
            None if status == "started" else time.time(),
        )  # fmt: skip
        if self.redactor is None and type(ledger) is _on_demand.InMemoryRunLedger:
            ledger.append_fields(fields)  # the record is built when read
            return None
        row = _on_demand.row_from_fields(fields)
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
        self._append(await _on_demand.to_thread(lambda: redact(row)))

    async def progress(self, value: float | None, message: str | None) -> None:
        """``context.progress`` of the call being reported: a progress event for
        ``progress_call``, then the caller's own ``outer_progress``."""
        if self.emit is not None and self.progress_call is not None:
            pending = self.send(
                _on_demand.ToolExecutionProgress(
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
