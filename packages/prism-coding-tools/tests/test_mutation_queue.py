"""Per-file mutation queue: one holder per real path, FIFO; other paths proceed at once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from prism.coding_tools import MutationQueue
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


async def test_same_real_path_is_serialized_in_order(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    (tmp_path / "alias").symlink_to("f")
    queue = MutationQueue()
    order: list[str] = []
    inside = 0

    async def hold(name: str, path: Path) -> None:
        nonlocal inside
        async with queue.hold(str(path)):
            inside += 1
            assert inside == 1  # never two holders of one file
            order.append(name)
            await anyio.sleep(0.01)
            inside -= 1

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            for i in range(6):
                group.start_soon(hold, f"h{i}", tmp_path / ("alias" if i % 2 else "f"))
                await anyio.sleep(0.001)  # fix the arrival order
    assert order == [f"h{i}" for i in range(6)]
    assert queue.pending(str(tmp_path / "f")) == 0  # entries vanish when unused


async def test_different_paths_do_not_wait_for_each_other(tmp_path: Path) -> None:
    queue = MutationQueue()
    both_inside = anyio.Event()
    count = 0

    async def hold(path: Path) -> None:
        nonlocal count
        async with queue.hold(str(path)):
            count += 1
            if count == 2:
                both_inside.set()
            await both_inside.wait()  # deadlocks if the second path had to wait

    with anyio.fail_after(scaled(5)):
        async with anyio.create_task_group() as group:
            group.start_soon(hold, tmp_path / "a")
            group.start_soon(hold, tmp_path / "b")


def test_one_queue_serves_several_event_loops(tmp_path: Path) -> None:
    queue = MutationQueue()

    async def use() -> str:
        async with queue.hold(str(tmp_path / "x")) as key:
            return key

    for backend in ("asyncio", "trio", "asyncio"):
        assert anyio.run(use, backend=backend) == str(tmp_path / "x")
