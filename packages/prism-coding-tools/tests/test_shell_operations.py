"""``ShellOperations`` is the seam a sandbox plugs into; the tool treats all alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import (
    ExecResult,
    LocalShellOperations,
    ShellOperations,
    ShellOptions,
    create_shell_tool,
)
from prism.coding_tools import _shell as shell_module
from prism.core import AbortController, AbortSignal
from prism.core.testing import scaled

from .conftest import Scripted

pytestmark = pytest.mark.anyio


class IgnoresAbort:
    async def exec(self, command: str, **kwargs: Any) -> ExecResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


def test_local_operations_satisfy_the_protocol() -> None:
    assert isinstance(LocalShellOperations(), ShellOperations)
    assert isinstance(Scripted(ExecResult(exit_code=0)), ShellOperations)


async def test_operations_receive_seconds_cwd_env_and_a_signal(
    tmp_path: Path, context: Any
) -> None:
    ops = Scripted(ExecResult(exit_code=0), b"sandboxed hello\n")
    shell = create_shell_tool(
        tmp_path, options=ShellOptions(operations=ops, env_allowlist=["PATH"])
    )
    result = await shell.execute({"command": "echo hi", "timeout": 2.5}, context())
    assert result.content[0].text == "sandboxed hello"  # type: ignore[union-attr]
    (call,) = ops.calls
    assert call["command"] == "echo hi" and call["cwd"] == str(tmp_path)
    assert call["timeout"] == 2.5  # seconds, never milliseconds
    assert set(call["env"]) <= {"PATH"}
    assert isinstance(call["signal"], AbortSignal)


async def test_a_timeout_from_operations_is_an_error_never_a_success(
    tmp_path: Path, context: Any
) -> None:
    ops = Scripted(ExecResult(exit_code=None, timed_out=True), b"partial output\n")
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=ops))
    result = await shell.execute({"command": "x"}, context())
    assert result.error is not None and result.error.code == "shell_timeout"
    assert result.content[0].text == "partial output"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        (ExecResult(exit_code=None), "shell_failed"),
        (ExecResult(exit_code=None, aborted=True), "aborted"),
        (OSError("bwrap: not found"), "shell_failed"),
        (RuntimeError("sandbox exploded"), "tool_failed"),
    ],
)
async def test_operation_failures_become_error_results(
    tmp_path: Path, context: Any, outcome: ExecResult | BaseException, code: str
) -> None:
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=Scripted(outcome)))
    result = await shell.execute({"command": "x"}, context())
    assert result.error is not None and result.error.code == code


async def test_operations_ignoring_an_abort_are_cancelled_after_a_guard(
    tmp_path: Path, context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_module, "_GUARD_SECONDS", 0.2)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=IgnoresAbort()))  # type: ignore[arg-type]
    controller = AbortController()
    results = []
    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:

            async def call() -> None:
                results.append(await shell.execute({"command": "x"}, context(controller.signal)))

            group.start_soon(call)
            await anyio.sleep(0.1)
            controller.abort()
    assert results[0].error is not None and results[0].error.code == "aborted"


async def test_operations_overrunning_their_timeout_are_cancelled(
    tmp_path: Path, context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_module, "_GUARD_SECONDS", 0.2)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=IgnoresAbort()))  # type: ignore[arg-type]
    with anyio.fail_after(scaled(10)):
        result = await shell.execute({"command": "x", "timeout": 0.1}, context())
    assert result.error is not None and result.error.code == "shell_timeout"


async def test_local_operations_directly(tmp_path: Path) -> None:
    ops = LocalShellOperations(kill_grace_seconds=0.5)
    chunks: list[bytes] = []
    with anyio.fail_after(scaled(10)):
        done = await ops.exec(
            "echo ok; exit 7", cwd=str(tmp_path), env={}, on_data=chunks.append, signal=None,
            timeout_seconds=None,
        )  # fmt: skip
        slow = await ops.exec(
            "sleep 30", cwd=str(tmp_path), env={}, on_data=chunks.append, signal=None,
            timeout_seconds=0.2,
        )  # fmt: skip
    assert done == ExecResult(exit_code=7) and b"".join(chunks) == b"ok\n"
    assert slow == ExecResult(exit_code=None, timed_out=True)
