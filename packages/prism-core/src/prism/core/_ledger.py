"""The run ledger: one row per status change of every tool call, for audit and replay."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, runtime_checkable

from ._fastinit import fast_init
from ._types import JsonObject, ToolResult

if TYPE_CHECKING:
    from datetime import datetime

__all__ = ["InMemoryRunLedger", "RecordStatus", "RunLedger", "ToolCallRecord", "new_record_id"]

RecordStatus: TypeAlias = Literal["started", "finished", "error", "blocked"]

_PREFIX = os.urandom(4).hex()
_COUNTER = itertools.count(1)


def new_record_id() -> str:
    """A process-unique, cheap row id."""
    return f"{_PREFIX}-{next(_COUNTER)}"


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


@runtime_checkable
class RunLedger(Protocol):
    """Receives every record; must not raise (a raising ledger is reported and ignored)."""

    def append(self, record: ToolCallRecord) -> None:
        """Store ``record``."""
        ...


class InMemoryRunLedger:
    """Keeps records in a list; ``records`` is a snapshot tuple."""

    __slots__ = ("_records",)

    def __init__(self) -> None:
        self._records: list[ToolCallRecord] = []

    def append(self, record: ToolCallRecord) -> None:
        """Store ``record`` (``list.append`` is atomic, so threads may append concurrently)."""
        self._records.append(record)

    @property
    def records(self) -> tuple[ToolCallRecord, ...]:
        """All records so far, in append order."""
        return tuple(self._records)

    def __len__(self) -> int:
        return len(self._records)
