"""The shell tool never leaves processes behind: timeout, abort, cancellation, leftovers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import LocalShellOperations, ShellOptions, create_shell_tool
from prism.core import AbortController, ToolResult
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio

# A child shell that records its pid, and a daemonized grandchild (double fork + setsid, so it
# leaves the process group and is re-parented) that keeps stdout open and records its pid too.
TREE = (
    "echo $$ > {pids}.child; "
    "(setsid sh -c 'echo $$ > {pids}.grandchild; echo grandchild-started; exec sleep 600' &); "
    "echo tree-ready; exec sleep 600"
)


async def wait_for_pids(base: Path, names: tuple[str, ...] = ("child", "grandchild")) -> list[int]:
    with anyio.fail_after(scaled(10)):
        while True:
            files = [Path(f"{base}.{name}") for name in names]
            if all(f.exists() and f.read_text().strip() for f in files):
                return [int(f.read_text()) for f in files]
            await anyio.sleep(0.02)


def tree_command(tmp_path: Path) -> tuple[str, Path]:
    base = tmp_path / "pids"
    return TREE.format(pids=base), base


async def test_timeout_kills_the_daemonized_grandchild_and_returns_promptly(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    shell = create_shell_tool(tmp_path)
    command, base = tree_command(tmp_path)
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        result: ToolResult = await shell.execute({"command": command, "timeout": 1}, context())
    elapsed = time.monotonic() - started
    pids = await wait_for_pids(base)
    assert result.error is not None and result.error.code == "shell_timeout"
    assert "timed out after 1s" in result.error.message
    assert "tree-ready" in result.content[0].text  # type: ignore[union-attr]
    assert result.metadata["timed_out"] is True and result.metadata["exit_code"] is None
    assert not [pid for pid in pids if is_alive(pid)]
    assert elapsed < scaled(1 + 3)  # inside timeout + kill grace, nowhere near the 600 s sleep


async def test_abort_kills_the_whole_tree(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    shell = create_shell_tool(tmp_path)
    command, base = tree_command(tmp_path)
    controller = AbortController()
    results: list[ToolResult] = []

    async def call() -> None:
        results.append(await shell.execute({"command": command}, context(controller.signal)))

    with anyio.fail_after(scaled(20)):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            pids = await wait_for_pids(base)
            aborted_at = time.monotonic()
            controller.abort("user pressed stop")
    assert time.monotonic() - aborted_at < scaled(3)
    assert results[0].error is not None and results[0].error.code == "aborted"
    assert "grandchild-started" in results[0].content[0].text  # type: ignore[union-attr]
    assert not [pid for pid in pids if is_alive(pid)]


async def test_processes_ignoring_sigterm_get_sigkill_after_the_grace(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    base = tmp_path / "stubborn"
    command = (
        f'(setsid sh -c \'trap "" TERM; echo $$ > {base}.grandchild; '
        "while :; do sleep 0.05; done' &); "
        f"trap '' TERM; echo $$ > {base}.child; while :; do sleep 0.05; done"
    )
    operations = LocalShellOperations(kill_grace_seconds=0.5)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=operations))
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": command, "timeout": 0.5}, context())
    elapsed = time.monotonic() - started
    pids = await wait_for_pids(base)
    assert result.error is not None and result.error.code == "shell_timeout"
    assert 0.5 + 0.5 <= elapsed < 0.5 + 0.5 + scaled(2)
    assert not [pid for pid in pids if is_alive(pid)]


async def test_host_cancellation_still_kills_the_tree(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    shell = create_shell_tool(tmp_path)
    command, base = tree_command(tmp_path)
    with anyio.fail_after(scaled(20)):
        async with anyio.create_task_group() as group:

            async def call() -> None:
                await shell.execute({"command": command}, context())

            group.start_soon(call)
            pids = await wait_for_pids(base)
            group.cancel_scope.cancel()
    assert not [pid for pid in pids if is_alive(pid)]


async def test_background_job_holding_the_output_is_stopped_after_exit(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    shell = create_shell_tool(tmp_path)
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        result = await shell.execute(
            {"command": f"sleep 600 & echo $! > {tmp_path}/bg.child; echo main-done"}, context()
        )
    assert not result.is_error and "main-done" in result.content[0].text  # type: ignore[union-attr]
    assert time.monotonic() - started < scaled(3)
    (pid,) = await wait_for_pids(tmp_path / "bg", ("child",))
    assert not is_alive(pid)


async def test_keep_background_processes_lets_a_detached_job_outlive_a_normal_exit(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    """The explicit opt-in: a job that let go of the output is the user's to keep."""
    operations = LocalShellOperations(keep_background_processes=True)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=operations))
    command = f"sleep 600 > /dev/null 2>&1 & echo $! > {tmp_path}/kept.child"
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": command}, context())
    (pid,) = await wait_for_pids(tmp_path / "kept", ("child",))
    try:
        assert not result.is_error
        assert is_alive(pid)
    finally:
        os.kill(pid, 9)


async def test_nonzero_exit_is_a_normal_result_naming_the_code(
    tmp_path: Path, context: Any
) -> None:
    shell = create_shell_tool(tmp_path)
    with anyio.fail_after(scaled(10)):
        result = await shell.execute({"command": "echo out; echo err >&2; exit 3"}, context())
        killed = await shell.execute({"command": "kill -KILL $$"}, context())
    assert not result.is_error
    assert result.content[0].text == "out\nerr\n\nCommand exited with code 3"  # type: ignore[union-attr]
    assert result.metadata["exit_code"] == 3
    assert not killed.is_error and "SIGKILL" in killed.content[0].text  # type: ignore[union-attr]


async def test_stdin_is_closed(tmp_path: Path, context: Any) -> None:
    shell = create_shell_tool(tmp_path)
    with anyio.fail_after(scaled(10)):
        result = await shell.execute({"command": "cat; read x; echo rc=$?"}, context())
    assert result.content[0].text == "rc=1"  # type: ignore[union-attr]


async def test_environment_full_or_allowlisted(
    tmp_path: Path, context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRISM_TEST_VISIBLE", "yes")
    monkeypatch.setenv("PRISM_TEST_SECRET", "hunter2")
    command = {"command": "echo v=$PRISM_TEST_VISIBLE s=$PRISM_TEST_SECRET"}
    full = create_shell_tool(tmp_path)
    only = create_shell_tool(tmp_path, options=ShellOptions(env_allowlist=["PRISM_TEST_VISIBLE"]))
    with anyio.fail_after(scaled(10)):
        assert (await full.execute(command, context())).content[0].text == "v=yes s=hunter2"  # type: ignore[union-attr]
        assert (await only.execute(command, context())).content[0].text == "v=yes s="  # type: ignore[union-attr]


async def test_start_failures_are_error_results(tmp_path: Path, context: Any) -> None:
    missing_shell = create_shell_tool(tmp_path, options=ShellOptions(shell_path="/nonexistent/sh"))
    gone = create_shell_tool(tmp_path / "gone")
    with anyio.fail_after(scaled(10)):
        no_shell = await missing_shell.execute({"command": "true"}, context())
        no_cwd = await gone.execute({"command": "true"}, context())
    assert no_shell.error is not None and no_shell.error.code == "shell_failed"
    assert "Could not start" in no_shell.error.message
    assert no_cwd.error is not None and "does not exist" in no_cwd.error.message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"command": "true", "timeout": 601}, "at most 600"),
        ({"command": "true", "timeout": 0}, "above 0"),
        ({"command": "true", "timeout": True}, "timeout"),
        ({"command": ""}, "must not be empty"),
        ({"command": 5}, "must be a string"),
        ({"command": "true", "timeout_ms": 5}, "Unknown argument"),
        ({}, "Missing required argument"),
    ],
)
async def test_bad_arguments_are_error_results(
    tmp_path: Path, context: Any, arguments: dict[str, object], message: str
) -> None:
    result = await create_shell_tool(tmp_path).execute(arguments, context())
    assert result.error is not None and result.error.code == "invalid_arguments"
    assert message in result.error.message
