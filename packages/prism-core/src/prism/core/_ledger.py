"""The run ledger: one row per status change of every tool call, for audit and replay."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, runtime_checkable

from ._fastinit import fast_init
from ._types import JsonObject, ToolResult

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "InMemoryRunLedger",
    "RecordStatus",
    "RowFields",
    "RunLedger",
    "ToolCallRecord",
    "next_row_number",
    "row_from_fields",
]

RecordStatus: TypeAlias = Literal["started", "finished", "error", "blocked"]

_PREFIX = os.urandom(4).hex()
next_row_number = itertools.count(1).__next__
"""The number of the next ledger row; with this process's random prefix, its unique id."""

RowFields: TypeAlias = """tuple[
    int, str, str, str, str, JsonObject, RecordStatus, str | None, ToolResult | None,
    float, float | None,
]"""
"""A ledger row as dispatch takes it down: ``ToolCallRecord``'s fields in order, the id as its
row number and both times as ``time.time()`` seconds (a tuple costs a fraction of the record;
the record is built from it when read, or at once for a ledger that takes records)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallRecord:
    """One ledger row. ``reason`` is the blocked reason or error code; times are UTC."""

    id: str
    session_id: str
    run_id: str
    tool_call_id: str
    name: str
    arguments: JsonObject
    status: RecordStatus
    reason: str | None
    result: ToolResult | None
    started_at: datetime
    finished_at: datetime | None


class _UtcTimes:
    """``at(t)`` is ``datetime.fromtimestamp(t, UTC)`` (what ``datetime.now(UTC)`` is made of);
    ``datetime`` is imported by the first call (the first row built), not on first use."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at: Callable[[float], datetime] = self._first

    def _first(self, timestamp: float) -> datetime:
        from datetime import UTC, datetime

        self.at = functools.partial(datetime.fromtimestamp, tz=UTC)
        return self.at(timestamp)


_UTC = _UtcTimes()


def row_from_fields(fields: RowFields) -> ToolCallRecord:
    """The ``ToolCallRecord`` of compact row ``fields``: its id, and UTC times."""
    number, session_id, run_id, call_id, name, arguments, status, reason, result, t0, t1 = fields
    return ToolCallRecord(
        id=f"{_PREFIX}-{number}", session_id=session_id, run_id=run_id, tool_call_id=call_id,
        name=name, arguments=arguments, status=status, reason=reason, result=result,
        started_at=_UTC.at(t0), finished_at=None if t1 is None else _UTC.at(t1),
    )  # fmt: skip


@runtime_checkable
class RunLedger(Protocol):
    """Receives every record; must not raise (a raising ledger is reported and ignored)."""

    def append(self, record: ToolCallRecord) -> None:
        """Store ``record``."""
        ...


class InMemoryRunLedger:
    """Keeps records in a list; ``records`` is a snapshot tuple.

    Dispatch hands it rows as ``RowFields`` tuples (``append_fields``), which ``records`` turns
    into ``ToolCallRecord`` rows when first read: equal to the rows a ledger taking records
    gets, at a fraction of the cost per call.
    """

    __slots__ = ("_records", "append_fields")

    def __init__(self) -> None:
        self._records: list[ToolCallRecord | RowFields] = []
        self.append_fields: Callable[[RowFields], None] = self._records.append
        """Store a row given as its compact fields (built into a record when read)."""

    def append(self, record: ToolCallRecord) -> None:
        """Store ``record`` (``list.append`` is atomic, so threads may append concurrently)."""
        self._records.append(record)

    @property
    def records(self) -> tuple[ToolCallRecord, ...]:
        """All records so far, in append order."""
        rows = self._records
        for index, row in enumerate(rows):
            if type(row) is tuple:  # built once; a concurrent reader builds an equal row
                rows[index] = row_from_fields(row)
        return tuple(rows)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._records)
