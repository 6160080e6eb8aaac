"""File tools under a concurrent directory <-> symlink swap: nothing lands outside the root.

A thread keeps exchanging a directory inside the root with a symlink to a directory outside it
while write, edit and read run against paths through that directory. The policy only allows
paths inside the root (as a containment policy does); whatever the timing, no file outside may
be created, changed or read.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_tools import MutationQueue, create_coding_tools
from prism.core import ExecutionAction, ExecutionDecision, ToolResult, render_tool_result
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio

ROUNDS = 300  # the most rounds a run may take
CAUGHT = 5  # mid-operation swaps each operation must survive before the race may stop early
SECRET = "outside secret one\n"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class ContainedPolicy:
    """Allows an action only when every path is inside ``root`` (what a root policy checks)."""

    def __init__(self, root: Path) -> None:
        self.root = os.path.realpath(root)

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        inside = all(
            os.path.commonpath([self.root, os.path.realpath(p)]) == self.root for p in action.paths
        )
        return ExecutionDecision(allowed=inside, reason=None if inside else "outside the root")


def snapshot(directory: Path) -> dict[str, bytes | None]:
    """Every entry below ``directory`` with its content (``None`` for directories)."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in dirnames:
            found[os.path.join(dirpath, name)] = None
        for name in filenames:
            found[os.path.join(dirpath, name)] = Path(dirpath, name).read_bytes()
    return found


def _exchanger() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return None

    def exchange(a: Path, b: Path) -> None:
        renameat2(_AT_FDCWD, bytes(a), _AT_FDCWD, bytes(b), _RENAME_EXCHANGE)

    return exchange


def swap_forever(sub: Path, parked: Path, stop: threading.Event, counter: list[int]) -> None:
    """Alternate ``sub`` between the real directory and the symlink (atomically if possible)."""
    exchange = _exchanger()
    while not stop.is_set():
        if exchange is not None:
            exchange(sub, parked)  # sub <-> parked: directory and symlink trade places
        else:  # not atomic, still a race
            with contextlib.suppress(OSError):
                os.rename(sub, str(parked) + ".dir")
                os.rename(parked, sub)
                os.rename(sub, parked)
                os.rename(str(parked) + ".dir", sub)
        counter[0] += 1


def caught_mid_operation(result: ToolResult) -> bool:
    """The swap landed between the policy check and the access, and the tool noticed."""
    return result.error is not None and "is now a symbolic link" in result.error.message


@pytest.mark.parametrize(("swapped", "rounds"), [("sub", ROUNDS), ("sub/f.txt", ROUNDS // 3)])
async def test_symlink_swap_race_never_lets_a_file_tool_escape(
    tmpfs_path: Path, context: Any, swapped: str, rounds: int
) -> None:
    root, outside = tmpfs_path / "root", tmpfs_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "f.txt").write_text(SECRET)
    sub = root / "sub"
    sub.mkdir()
    (sub / "f.txt").write_text("inside one\n")
    parked = root / "parked"
    parked.symlink_to(outside / "f.txt" if swapped.endswith(".txt") else outside)
    before = snapshot(outside)
    _shell, read, write, edit = create_coding_tools(
        root, execution_policy=ContainedPolicy(root), mutation_queue=MutationQueue()
    )
    results: list[ToolResult] = []
    # Each operation kind exposed to the swap, and how often it caught the swap mid-operation.
    caught = dict.fromkeys(["write", "edit", "read", *(["mkdir"] if swapped == "sub" else [])], 0)

    async def call(kind: str, tool: Any, arguments: dict[str, object]) -> None:
        result = await tool.execute(arguments, context())
        results.append(result)
        if kind in caught and caught_mid_operation(result):
            caught[kind] += 1

    stop, swaps = threading.Event(), [0]
    swapper = threading.Thread(
        target=swap_forever, args=(root / swapped, parked, stop, swaps), daemon=True
    )
    swapper.start()
    try:
        with anyio.fail_after(scaled(90)):
            for number in range(rounds):
                async with anyio.create_task_group() as group:
                    group.start_soon(
                        call, "write", write, {"path": "sub/f.txt", "content": "inside one\n"}
                    )
                    group.start_soon(
                        call, "mkdir", write,
                        {"path": f"sub/new{number % 3}/deep/g.txt", "content": "x"},
                    )  # fmt: skip
                    group.start_soon(
                        call, "edit", edit,
                        {"path": "sub/f.txt", "edits": [{"old_text": "one", "new_text": "two"}]},
                    )  # fmt: skip
                    group.start_soon(call, "read", read, {"path": "sub/f.txt"})
                # Stopping early needs proof that every exposed operation really met the swap
                # between its check and its access CAUGHT times (and survived it). An
                # implementation that follows the link instead never counts as caught, so it
                # runs the full ``rounds`` exactly as a fixed-count loop would.
                if min(caught.values()) >= CAUGHT:
                    break
    finally:
        stop.set()
        swapper.join(10)
    assert swaps[0] > number  # the race really ran
    assert snapshot(outside) == before, "a file tool changed something outside the root"
    leaked = [r for r in results if "outside secret" in render_tool_result(r)]
    assert leaked == [], "read returned the content of a file outside the root"
    succeeded = [r for r in results if not r.is_error]
    assert succeeded  # the tools still work while the race runs
    codes = {r.error.code for r in results if r.error is not None}
    assert codes <= {"execution_denied", "io_error", "file_not_found", "edit_not_found"}, codes


class SwappingPolicy(ContainedPolicy):
    """Checks containment, then swaps ``victim`` for a symlink to ``outside``: the race,
    deterministically, in the window between the check and the access."""

    def __init__(self, root: Path, victim: Path, outside: Path) -> None:
        super().__init__(root)
        self.victim, self.outside = victim, outside

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        decision = super().check(action)
        if self.victim.is_dir() and not self.victim.is_symlink():
            self.victim.rename(self.victim.with_name("moved-aside"))
        else:
            self.victim.unlink()
        self.victim.symlink_to(self.outside)
        return decision


@pytest.mark.parametrize("victim", ["sub", "sub/f.txt"])
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write", {"path": "sub/f.txt", "content": "inside two\n"}),
        ("edit", {"path": "sub/f.txt", "edits": [{"old_text": "one", "new_text": "two"}]}),
        ("read", {"path": "sub/f.txt"}),
    ],
)
async def test_a_path_swapped_after_the_check_is_refused_naming_the_link(
    tmp_path: Path, context: Any, victim: str, name: str, arguments: dict[str, object]
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub/f.txt").write_text("inside one\n")
    (outside / "f.txt").write_text(SECRET)
    target = outside / "f.txt" if victim.endswith(".txt") else outside
    before = snapshot(outside)
    policy = SwappingPolicy(root, root / victim, target)
    tools = {t.name: t for t in create_coding_tools(root, execution_policy=policy)}
    with anyio.fail_after(scaled(10)):
        result = await tools[name].execute(arguments, context())
    assert result.error is not None and result.error.code == "io_error", result
    assert f"{root / victim} is now a symbolic link" in result.error.message
    assert "outside secret" not in render_tool_result(result)
    assert snapshot(outside) == before


async def test_a_policy_supplied_path_is_not_resolved_through_symlinks(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real/f.txt").write_text("real\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    redirected = policy(modified={"paths": [str(tmp_path / "link/f.txt")]})
    tools = {t.name: t for t in create_coding_tools(tmp_path, execution_policy=redirected)}
    with anyio.fail_after(scaled(10)):
        read = await tools["read"].execute({"path": "asked.txt"}, context())
        write = await tools["write"].execute({"path": "asked.txt", "content": "x"}, context())
    for result in (read, write):
        assert result.error is not None and "link is now a symbolic link" in result.error.message
    assert (tmp_path / "real/f.txt").read_text() == "real\n"


_LINK_TARGETS = ["a", "b", "../outside", "l2", "a/deep", "missing", "/"]
_COMPONENTS = ["a", "b", "l1", "l2", "..", "deep", "new"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    l1=st.sampled_from(_LINK_TARGETS),
    l2=st.sampled_from(_LINK_TARGETS),
    parts=st.lists(st.sampled_from(_COMPONENTS), min_size=0, max_size=4),
)
def test_any_symlink_layout_writes_exactly_the_checked_path_inside_the_root(
    tmpfs_path: Path, context: Any, l1: str, l2: str, parts: list[str]
) -> None:
    with tempfile.TemporaryDirectory(dir=tmpfs_path) as base_dir:
        base = Path(base_dir)
        root, outside = base / "root", base / "outside"
        (root / "a" / "deep").mkdir(parents=True)
        (root / "b").mkdir()
        outside.mkdir()
        (root / "l1").symlink_to(l1)
        (root / "l2").symlink_to(l2)
        before = snapshot(outside)
        path = "/".join([*parts, "f.txt"])
        expected = os.path.realpath(root / path)
        inside = os.path.commonpath([os.path.realpath(root), expected]) == os.path.realpath(root)
        write = create_coding_tools(root, execution_policy=ContainedPolicy(root))[2]

        async def attempt() -> ToolResult:
            with anyio.fail_after(scaled(10)):
                return await write.execute({"path": path, "content": "x"}, context())

        for backend in ("asyncio", "trio"):
            result = anyio.run(attempt, backend=backend)
            assert snapshot(outside) == before
            if not inside:
                assert result.error is not None and result.error.code == "execution_denied"
            elif not result.is_error:
                assert result.metadata["path"] == expected
                assert Path(expected).read_text() == "x"
