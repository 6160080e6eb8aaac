"""A test probe for loop-blocking work: the longest stretch the event loop did not run."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ._backend import sleep, task_group

__all__ = ["largest_loop_gap"]

T = TypeVar("T")


async def largest_loop_gap(
    work: Callable[[], Awaitable[T]], *, tick_seconds: float = 0.001, lead_seconds: float = 0.01
) -> tuple[float, T]:
    """Run ``work()`` while a ticker (every ``tick_seconds``, started ``lead_seconds`` earlier)
    measures the longest gap between its ticks; returns that gap and what ``work`` returned."""
    largest = 0.0
    finished = False
    outcome: list[T] = []

    async def ticker() -> None:
        nonlocal largest
        last = time.perf_counter()
        while not finished:
            await sleep(tick_seconds)
            now = time.perf_counter()
            largest = max(largest, now - last)
            last = now

    async def run() -> None:
        nonlocal finished
        try:
            await sleep(lead_seconds)
            outcome.append(await work())
        finally:
            finished = True

    async with task_group() as group:
        group.start_soon(ticker)
        group.start_soon(run)
    return largest, outcome[0]
