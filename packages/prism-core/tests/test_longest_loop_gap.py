"""``longest_loop_gap`` sees work that holds the event loop's CPU, and not work that awaits."""

from __future__ import annotations

import time

import anyio
import pytest

from prism.core.testing import HEARTBEAT_PERIOD, longest_loop_gap, scaled

pytestmark = pytest.mark.anyio


async def test_a_call_holding_the_loop_shows_as_a_gap_and_its_value_comes_back() -> None:
    async def spins() -> int:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:  # holds the loop for 0.1 s of CPU: no heartbeat
            pass
        return 7

    with anyio.fail_after(scaled(10)):
        value, gap = await longest_loop_gap(spins)
    assert value == 7
    assert gap >= 0.1


async def test_work_that_only_awaits_leaves_no_gap_beyond_the_beats() -> None:
    async def awaits() -> str:
        await anyio.sleep(0.05)
        return "done"

    with anyio.fail_after(scaled(10)):
        value, gap = await longest_loop_gap(awaits)
    assert value == "done"
    assert gap < scaled(0.05)


async def test_a_sleep_that_blocks_the_loop_counts_only_as_cpu_it_used() -> None:
    """The measure is CPU the process could have used (other processes' load is not a stall),
    so a blocking sleep is not seen: this helper checks CPU-bound work, not blocking I/O."""

    async def sleeps() -> None:
        time.sleep(0.1)

    with anyio.fail_after(scaled(10)):
        _, gap = await longest_loop_gap(sleeps)
    assert gap < 0.1 - HEARTBEAT_PERIOD
