"""``largest_loop_gap`` sees a call that blocks the event loop, and not one that does not."""

from __future__ import annotations

import time

import anyio
import pytest

from prism.core.testing import largest_loop_gap, scaled

pytestmark = pytest.mark.anyio


async def test_a_blocking_call_shows_as_a_gap_and_its_value_comes_back() -> None:
    async def blocks() -> int:
        time.sleep(0.1)  # holds the loop: the ticker cannot run meanwhile
        return 7

    with anyio.fail_after(scaled(10)):
        gap, value = await largest_loop_gap(blocks, tick_seconds=0.005, lead_seconds=0.02)
    assert value == 7
    assert gap >= 0.1


async def test_work_that_only_awaits_leaves_no_gap_beyond_the_ticks() -> None:
    async def awaits() -> str:
        await anyio.sleep(0.05)
        return "done"

    with anyio.fail_after(scaled(10)):
        gap, value = await largest_loop_gap(awaits)
    assert value == "done"
    assert gap < scaled(0.05)
