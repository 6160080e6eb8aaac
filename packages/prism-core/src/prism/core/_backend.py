"""The tiny async backend shim: the few primitives core needs, on asyncio or trio.

Core may not import anyio, trio or sniffio. We detect the running library at call time
(trio if it is imported and a trio task is current, else asyncio) and offer a task group,
a cancel scope with deadline, a thread-safe wake-up, sleep and ``to_thread``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

Backend = Literal["asyncio", "trio"]


def current_backend() -> Backend:
    """Return the async library running the current task."""
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            return "trio"
    return "asyncio"


async def sleep(seconds: float) -> None:
    """Sleep on the running backend."""
    if current_backend() == "trio":
        import trio

        await trio.sleep(seconds)
    else:
        import asyncio

        await asyncio.sleep(seconds)


async def to_thread(fn: Callable[[], T]) -> T:
    """Run a blocking callable in a worker thread; cancellation abandons the thread."""
    if current_backend() == "trio":
        import trio

        return await trio.to_thread.run_sync(fn, abandon_on_cancel=True)
    import asyncio

    return await asyncio.to_thread(fn)


class Waker(Protocol):
    """A one-shot wake-up that any thread may fire and one task awaits."""

    def fire(self) -> None: ...

    async def wait(self) -> None: ...


class _AsyncioWaker:
    __slots__ = ("_fut", "_loop")

    def __init__(self) -> None:
        import asyncio

        self._loop = asyncio.get_running_loop()
        self._fut: asyncio.Future[None] = self._loop.create_future()

    def _set(self) -> None:
        if not self._fut.done():
            self._fut.set_result(None)

    def fire(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._set)
        except RuntimeError:  # loop closed: nobody is waiting any more
            pass

    async def wait(self) -> None:
        import asyncio

        await asyncio.shield(self._fut)


class _TrioWaker:
    __slots__ = ("_event", "_token")

    def __init__(self) -> None:
        import trio

        self._event = trio.Event()
        self._token = trio.lowlevel.current_trio_token()

    def fire(self) -> None:
        import trio

        try:
            self._token.run_sync_soon(self._event.set)
        except trio.RunFinishedError:
            pass

    async def wait(self) -> None:
        await self._event.wait()


def new_waker() -> Waker:
    """Create a thread-safe one-shot wake-up bound to the running loop."""
    if current_backend() == "trio":
        return _TrioWaker()
    return _AsyncioWaker()


class CancelScope(Protocol):
    """A region of code that can be cancelled from outside, or at a deadline."""

    def cancel(self) -> None: ...

    @property
    def cancelled_caught(self) -> bool: ...


class _AsyncioScope:
    """``move_on`` semantics on asyncio, built on ``asyncio.timeout``."""

    __slots__ = ("_cm", "_pending_cancel", "cancelled_caught", "deadline")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._cm: asyncio.Timeout | None = None
        self._pending_cancel = False
        self.cancelled_caught = False

    def cancel(self) -> None:
        import asyncio

        if self._cm is None:
            self._pending_cancel = True
        elif not self._cm.expired():
            self._cm.reschedule(asyncio.get_running_loop().time())

    async def __aenter__(self) -> _AsyncioScope:
        import asyncio

        loop = asyncio.get_running_loop()
        when = None if math.isinf(self.deadline) else loop.time() + max(0.0, self.deadline)
        if self._pending_cancel:
            when = loop.time()
        self._cm = asyncio.timeout_at(when)
        await self._cm.__aenter__()
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool:
        assert self._cm is not None
        try:
            await self._cm.__aexit__(et, ev, tb)
        except TimeoutError:
            if self._cm.expired():
                self.cancelled_caught = True
                return True
            raise
        return False


class _TrioScope:
    __slots__ = ("_scope",)

    def __init__(self, relative: float) -> None:
        import trio

        self._scope = trio.CancelScope()
        if not math.isinf(relative):
            self._scope.deadline = trio.current_time() + max(0.0, relative)

    def cancel(self) -> None:
        self._scope.cancel()

    @property
    def cancelled_caught(self) -> bool:
        return self._scope.cancelled_caught

    async def __aenter__(self) -> _TrioScope:
        self._scope.__enter__()
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool:
        return bool(self._scope.__exit__(et, ev, tb))


class MoveOnScope(CancelScope, Protocol):
    async def __aenter__(self) -> MoveOnScope: ...

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool: ...


def move_on_after(seconds: float = math.inf) -> MoveOnScope:
    """A cancel scope that silently ends its body at ``seconds`` or on ``cancel()``."""
    if current_backend() == "trio":
        return _TrioScope(seconds)
    return _AsyncioScope(seconds)


class TaskGroup(Protocol):
    """Structured concurrency: every task started inside ends before the group exits."""

    def start_soon(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None: ...

    def cancel(self) -> None: ...

    async def __aenter__(self) -> TaskGroup: ...

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool | None: ...


class _AsyncioTaskGroup:
    __slots__ = ("_scope", "_tasks", "_tg")

    def __init__(self) -> None:
        import asyncio

        self._tg = asyncio.TaskGroup()
        self._tasks: list[asyncio.Task[None]] = []

    def start_soon(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._tasks.append(self._tg.create_task(fn()))

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()

    async def __aenter__(self) -> _AsyncioTaskGroup:
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool | None:
        await self._tg.__aexit__(et, ev, tb)
        return None


class _TrioTaskGroup:
    __slots__ = ("_cm", "_nursery")

    def __init__(self) -> None:
        import trio

        self._cm = trio.open_nursery()
        self._nursery: Any = None

    def start_soon(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._nursery.start_soon(fn)

    def cancel(self) -> None:
        self._nursery.cancel_scope.cancel()

    async def __aenter__(self) -> _TrioTaskGroup:
        self._nursery = await self._cm.__aenter__()
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> bool | None:
        return await self._cm.__aexit__(et, ev, tb)


def task_group() -> TaskGroup:
    """Open a task group on the running backend (``asyncio.TaskGroup`` or a trio nursery)."""
    if current_backend() == "trio":
        return _TrioTaskGroup()
    return _AsyncioTaskGroup()


async def maybe_await(value: T | Awaitable[T]) -> T:
    """Await ``value`` if it is awaitable, else return it unchanged."""
    if hasattr(value, "__await__"):
        return await value
    return value
