"""Row ids that name the durable call: one ``started`` and one outcome id per call.

A durable call may be concluded twice (a queued call past its deadline is concluded by the run
while a slow worker still finishes it; a call re-run after a crash). Its ledger rows carry ids
derived from the run, the turn and the call's position, the same in every process and on every
attempt, so a ledger that keeps ids unique (a primary key) holds one outcome row per call: the
reporter logs and ignores the second append.
"""

from __future__ import annotations

import dataclasses
from contextvars import ContextVar

from prism.core import RunLedger, ToolCallRecord

__all__ = ["CALL_KEY", "KeyedLedger", "call_key", "row_id"]

CALL_KEY: ContextVar[str | None] = ContextVar("prism_dbos_call_key", default=None)
"""The durable call being concluded in this task (``<run>/<turn>/<index>``)."""


def call_key(run_id: str, turn: int | str, index: int | str) -> str:
    """The key of call ``index`` of turn ``turn`` of run ``run_id``."""
    return f"{run_id}/{turn}/{index}"


def row_id(key: str, status: str) -> str:
    """The id of the row of ``status`` for the call ``key``: ``started`` or its outcome."""
    return f"{key}/{'started' if status == 'started' else 'outcome'}"


class KeyedLedger:
    """A ledger that gives the rows of the durable call in progress their deterministic ids."""

    __slots__ = ("inner",)

    def __init__(self, inner: RunLedger) -> None:
        self.inner = inner

    def append(self, record: ToolCallRecord) -> None:
        """Forward ``record`` with its durable id (unchanged outside a durable call)."""
        key = CALL_KEY.get()
        if key is not None:
            record = dataclasses.replace(record, id=row_id(key, record.status))
        self.inner.append(record)
