"""A heartbeat for tests: how long the event loop went without running a task while some
work ran (the claim being checked is "this work never blocks the loop")."""

from __future__ import annotations

import gc
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from . import _backend

__all__ = ["HEARTBEAT_PERIOD", "longest_loop_gap"]

T = TypeVar("T")

HEARTBEAT_PERIOD = 0.005
"""The heartbeat sleeps this long between beats; a gap includes it."""


async def longest_loop_gap(work: Callable[[], Awaitable[T]]) -> tuple[T, float]:
    """``work()``'s result and the longest time in seconds between two heartbeats (a task
    sleeping ``HEARTBEAT_PERIOD`` at a time on the same loop) while it ran.

    The heap that existed before (the test runner's: every module it imported) is frozen
    for the measurement (``gc.freeze``): a full garbage collection then scans what the work
    allocated, not the runner, whose heap size is not the work's doing.
    """
    gc.collect()
    gc.freeze()
    try:
        return await _measure(work)
    finally:
        gc.unfreeze()


async def _measure(work: Callable[[], Awaitable[T]]) -> tuple[T, float]:
    gaps = [0.0]
    done = [False]
    out: list[T] = []

    async def heartbeat() -> None:
        last = time.perf_counter()
        while not done[0]:
            await _backend.sleep(HEARTBEAT_PERIOD)
            now = time.perf_counter()
            gaps[0] = max(gaps[0], now - last)
            last = now

    async def run() -> None:
        await _backend.sleep(4 * HEARTBEAT_PERIOD)  # the heartbeat is beating
        try:
            out.append(await work())
        finally:
            done[0] = True

    async with _backend.task_group() as group:
        group.start_soon(heartbeat)
        group.start_soon(run)
    return out[0], gaps[0]
