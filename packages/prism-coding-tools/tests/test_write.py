"""write: UTF-8 bound first, parents created, atomic replace, mode kept, symlinks followed."""

from __future__ import annotations

import os
import random
import stat
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from prism.coding_tools import WriteOptions, create_write_tool
from prism.core import AbortController, ExecutionAction, ExecutionDecision
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def contents(directory: Path, pattern: str) -> list[str]:
    return sorted(p.read_text() for p in directory.glob(pattern))


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


async def test_creates_parents_and_writes_exact_bytes(tmp_path: Path, context: Any) -> None:
    tool = create_write_tool(tmp_path)
    result = await tool.execute({"path": "a/b/c.txt", "content": "héllo\r\nworld"}, context())
    assert not result.is_error
    assert (tmp_path / "a/b/c.txt").read_bytes() == "héllo\r\nworld".encode()
    assert result.metadata == {
        "path": str(tmp_path / "a/b/c.txt"),
        "bytes": 13,
        "created": True,
    }
    assert stat.S_IMODE((tmp_path / "a/b/c.txt").stat().st_mode) == 0o666 & ~0o022
    empty = await tool.execute({"path": "empty.txt", "content": ""}, context())
    assert not empty.is_error and (tmp_path / "empty.txt").read_bytes() == b""


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444])
async def test_replacement_is_atomic_and_keeps_the_mode(
    tmp_path: Path, context: Any, mode: int
) -> None:
    target = tmp_path / "f.sh"
    target.write_text("old")
    target.chmod(mode)
    inode = target.stat().st_ino
    result = await create_write_tool(tmp_path).execute(
        {"path": "f.sh", "content": "new"}, context()
    )
    assert not result.is_error and result.metadata["created"] is False
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.stat().st_ino != inode  # replaced by rename, never rewritten in place
    assert leftovers(tmp_path) == []


async def test_symlink_is_written_through_to_its_target(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "target.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to(real / "target.txt")
    (tmp_path / "dangling.txt").symlink_to(real / "new" / "made.txt")
    recorder = policy()
    tool = create_write_tool(tmp_path, execution_policy=recorder)
    await tool.execute({"path": "link.txt", "content": "new"}, context())
    await tool.execute({"path": "dangling.txt", "content": "made"}, context())
    assert (tmp_path / "link.txt").is_symlink() and (real / "target.txt").read_text() == "new"
    assert (tmp_path / "dangling.txt").is_symlink() and (
        real / "new/made.txt"
    ).read_text() == "made"
    assert [a.paths for a in recorder.actions] == [
        (str(real / "target.txt"),),
        (str(real / "new" / "made.txt"),),
    ]


@pytest.mark.parametrize(
    ("setup", "path", "code"),
    [
        (lambda p: (p / "dir").mkdir(), "dir", "not_a_file"),
        (lambda p: (p / "file").write_text("x"), "file/child.txt", "io_error"),
    ],
)
async def test_failures_leave_nothing_behind(
    tmp_path: Path, context: Any, setup: Any, path: str, code: str
) -> None:
    setup(tmp_path)
    before = names(tmp_path)
    result = await create_write_tool(tmp_path).execute({"path": path, "content": "x"}, context())
    assert result.error is not None and result.error.code == code
    assert names(tmp_path) == before


async def test_abort_before_the_write_changes_nothing(tmp_path: Path, context: Any) -> None:
    controller = AbortController()

    class AbortsWhileChecking:
        def check(self, action: ExecutionAction) -> ExecutionDecision:
            controller.abort("user stopped")
            return ExecutionDecision(allowed=True)

    (tmp_path / "f.txt").write_text("old")
    tool = create_write_tool(tmp_path, execution_policy=AbortsWhileChecking())
    result = await tool.execute({"path": "f.txt", "content": "new"}, context(controller.signal))
    assert result.error is not None and result.error.code == "aborted"
    assert (tmp_path / "f.txt").read_text() == "old" and leftovers(tmp_path) == []


async def test_abort_at_any_moment_leaves_old_or_new_never_a_mix(
    tmp_path: Path, context: Any
) -> None:
    target = tmp_path / "f.txt"
    old, new = "o" * 3_000_000, "n" * 3_000_000
    tool = create_write_tool(tmp_path)
    rng = random.Random(7)
    outcomes = set()
    for _ in range(12):
        target.write_text(old)
        controller = AbortController()
        delay = rng.uniform(0, 0.02)
        timer = threading.Timer(delay, controller.abort)
        timer.start()
        with anyio.fail_after(scaled(10)):
            result = await tool.execute(
                {"path": "f.txt", "content": new}, context(controller.signal)
            )
        timer.join()
        content = await anyio.to_thread.run_sync(target.read_text)
        assert content in (old, new)
        assert (content == new) == (not result.is_error)
        assert leftovers(tmp_path) == []
        outcomes.add(result.is_error)
    assert outcomes  # at least one path exercised (timing decides which)


async def test_utf8_size_bound_exactly_and_over(tmp_path: Path, context: Any) -> None:
    tool = create_write_tool(tmp_path, options=WriteOptions(max_input_bytes=10))
    fits = await tool.execute({"path": "ok.txt", "content": "é" * 5}, context())
    over = await tool.execute({"path": "no/over.txt", "content": "é" * 6}, context())
    assert not fits.is_error
    assert over.error is not None and over.error.code == "input_too_large"
    assert "12 bytes of UTF-8, more than the 10-byte limit" in over.error.message
    assert not (tmp_path / "no").exists()


async def test_bad_content_is_refused(tmp_path: Path, context: Any) -> None:
    tool = create_write_tool(tmp_path)
    surrogate = await tool.execute({"path": "s.txt", "content": "a\ud800b"}, context())
    not_text = await tool.execute({"path": "s.txt", "content": 5}, context())
    assert surrogate.error is not None and "lone surrogate" in surrogate.error.message
    assert not_text.error is not None and not_text.error.code == "invalid_arguments"
    assert not (tmp_path / "s.txt").exists()


async def test_writes_to_different_files_run_in_parallel(tmp_path: Path, context: Any) -> None:
    tool = create_write_tool(tmp_path)
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        async with anyio.create_task_group() as group:
            for i in range(20):
                group.start_soon(tool.execute, {"path": f"f{i}.txt", "content": str(i)}, context())
    assert time.monotonic() - started < scaled(10)
    assert contents(tmp_path, "f*.txt") == sorted(map(str, range(20)))
    assert os.listdir(tmp_path).count("f0.txt") == 1
