"""Per-file mutation queue: write/edit on the same real path run one at a time, in order."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import anyio
from anyio.lowlevel import RunVar

from prism.core import ExecutionPolicy, ToolExecutionContext

from ._common import check_aborted, in_worker
from ._paths import allowed_path

__all__ = [
    "DEFAULT_MUTATION_QUEUE",
    "MutationQueue",
    "mutate_checked_path",
    "serialized_in_worker",
]

T = TypeVar("T")


class _Slot:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = anyio.Lock()
        self.users = 0


class MutationQueue:
    """Serializes mutations per ``realpath`` (FIFO); different files proceed in parallel.

    State lives per event loop (an anyio ``RunVar``), so one queue may be shared by tools
    used from several ``asyncio.run``/``trio.run`` calls; entries vanish when unused.
    """

    def __init__(self) -> None:
        self._slots: RunVar[dict[str, _Slot]] = RunVar(f"prism_mutation_queue_{id(self)}")

    def _table(self) -> dict[str, _Slot]:
        try:
            return self._slots.get()
        except LookupError:
            table: dict[str, _Slot] = {}
            self._slots.set(table)
            return table

    @asynccontextmanager
    async def hold(self, path: str) -> AsyncIterator[str]:
        """Hold the queue for ``path`` (keyed by its realpath, which is yielded)."""
        key = _key(path)
        table = self._table()
        slot = table.get(key)
        if slot is None:
            slot = table[key] = _Slot()
        slot.users += 1
        try:
            async with slot.lock:
                yield key
        finally:
            slot.users -= 1
            if slot.users == 0 and table.get(key) is slot:
                del table[key]

    def pending(self, path: str) -> int:
        """How many holders and waiters ``path`` has right now (for tests and metrics)."""
        slot = self._table().get(_key(path))
        return 0 if slot is None else slot.users


def _key(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:  # changing under our feet: the path itself still names one queue
        return os.path.normpath(path)


DEFAULT_MUTATION_QUEUE = MutationQueue()
"""The queue every write/edit tool uses unless given its own."""


async def serialized_in_worker(
    queue: MutationQueue,
    path: str,
    context: ToolExecutionContext,
    what: str,
    work: Callable[[Callable[[], bool]], T],
) -> T:
    """Run blocking ``work`` in a worker thread while holding ``queue`` for ``path``; an abort
    seen once the queue is held changes nothing, and the thread is never abandoned."""
    async with queue.hold(path):
        check_aborted(context, what)
        return await in_worker(work, context, abandon_on_cancel=False)


async def mutate_checked_path(
    queue: MutationQueue,
    policy: ExecutionPolicy | None,
    context: ToolExecutionContext,
    root: str,
    raw: str,
    *,
    kind: str,
    what: str,
    work: Callable[[str, Callable[[], bool]], T],
) -> tuple[str, T]:
    """The path ``raw`` as the policy allows a medium-risk ``kind`` change to it, and what
    ``work(path, should_stop)`` returned, run in a worker holding ``queue`` for that file."""
    target = await allowed_path(policy, context, root, raw, kind=kind, risk="medium")
    return target, await serialized_in_worker(
        queue, target, context, what, lambda should_stop: work(target, should_stop)
    )
