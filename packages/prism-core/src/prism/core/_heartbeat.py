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

    A gap counts only the time this process could have used: each gap is the smaller of its
    wall time and the process's CPU time during it (every thread) plus the period. A loop kept
    from running by this process's work (the GIL held by a worker, a collection) uses CPU, so
    it counts in full; time the operating system gave to other processes does not (on an idle
    machine the two measures agree). The heap that existed before (the test runner's: every
    module it imported) is frozen for the measurement (``gc.freeze``): a full garbage
    collection then scans what the work allocated, not the runner, whose size is not the
    work's doing.
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
        last, last_cpu = time.perf_counter(), time.process_time()
        while not done[0]:
            await _backend.sleep(HEARTBEAT_PERIOD)
            now, cpu = time.perf_counter(), time.process_time()
            gaps[0] = max(gaps[0], min(now - last, cpu - last_cpu + HEARTBEAT_PERIOD))
            last, last_cpu = now, cpu

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
