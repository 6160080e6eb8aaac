"""A tiny backend-neutral async toolkit for row checks (core has no anyio; rows run on both).

Detects the running library the way ``prism.core`` does (trio if a trio task is current,
else asyncio) and offers sleep, an event, and a move-on deadline.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from types import TracebackType
from typing import Any, Literal

__all__ = ["Event", "MoveOn", "current_backend", "monotonic", "move_on_after", "sleep"]

Backend = Literal["asyncio", "trio"]


def current_backend() -> Backend:
    """The async library running the current task."""
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            return "trio"
    return "asyncio"


def monotonic() -> float:
    """Wall-clock monotonic seconds (independent of the backend's clock)."""
    return time.monotonic()


async def sleep(seconds: float) -> None:
    """Sleep on the running backend."""
    if current_backend() == "trio":
        import trio

        await trio.sleep(seconds)
    else:
        await asyncio.sleep(seconds)


class Event:
    """A one-shot event for tasks of one event loop (not thread-safe)."""

    __slots__ = ("_impl",)

    def __init__(self) -> None:
        if current_backend() == "trio":
            import trio

            self._impl: Any = trio.Event()
        else:
            self._impl = asyncio.Event()

    def set(self) -> None:
        """Wake every waiter, now and later."""
        self._impl.set()

    def is_set(self) -> bool:
        """Whether ``set`` was called."""
        return bool(self._impl.is_set())

    async def wait(self) -> None:
        """Return once the event is set."""
        await self._impl.wait()


class MoveOn:
    """``async with move_on_after(s) as scope``: the body ends silently at the deadline.

    ``scope.expired`` tells whether the deadline cut the body short.
    """

    __slots__ = ("_cm", "_seconds", "expired")

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._cm: Any = None
        self.expired = False

    async def __aenter__(self) -> MoveOn:
        if current_backend() == "trio":
            import trio

            self._cm = trio.move_on_after(self._seconds)
            self._cm.__enter__()
        else:
            loop = asyncio.get_running_loop()
            when = None if math.isinf(self._seconds) else loop.time() + self._seconds
            self._cm = asyncio.timeout(when)
            await self._cm.__aenter__()
        return self

    async def __aexit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if isinstance(self._cm, asyncio.Timeout):
            try:
                await self._cm.__aexit__(et, ev, tb)
            except TimeoutError:
                if self._cm.expired():
                    self.expired = True
                    return True
                raise
            return False
        suppressed = bool(self._cm.__exit__(et, ev, tb))
        self.expired = bool(self._cm.cancelled_caught)
        return suppressed


def move_on_after(seconds: float) -> MoveOn:
    """A deadline scope that ends its body silently after ``seconds``."""
    return MoveOn(seconds)
