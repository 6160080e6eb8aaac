"""Exclusive tools run alone: a reader-writer lock over the calls of one set of tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["TurnLock"]


class TurnLock:
    """Shared for ordinary calls, alone for ``exclusive`` tools; a waiting exclusive call goes
    before new shared ones.

    The Agents SDK runs one turn's function calls concurrently and has no per-tool
    ``sequential`` flag, so the tools built together share this lock instead. Releasing never
    awaits, so a cancelled call can never leave the lock held.
    """

    __slots__ = ("_changed", "_readers", "_waiting_writers", "_writing")

    def __init__(self) -> None:
        self._changed: asyncio.Event | None = None
        self._readers = 0
        self._writing = False
        self._waiting_writers = 0

    async def _wait(self) -> None:
        if self._changed is None:
            self._changed = asyncio.Event()
        await self._changed.wait()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    @asynccontextmanager
    async def hold(self, exclusive: bool) -> AsyncIterator[None]:
        """Hold the lock shared, or alone when ``exclusive``."""
        if exclusive:
            self._waiting_writers += 1
            try:
                while self._writing or self._readers:
                    await self._wait()
            finally:
                self._waiting_writers -= 1
                self._notify()
            self._writing = True
        else:
            while self._writing or self._waiting_writers:
                await self._wait()
            self._readers += 1
        try:
            yield
        finally:
            if exclusive:
                self._writing = False
            else:
                self._readers -= 1
            self._notify()
