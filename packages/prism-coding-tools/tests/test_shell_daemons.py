"""No daemon survives a command: detached shapes after normal exit, timeout and abort.

Each command starts a process that leaves the process group and lets go of the output pipe
(``setsid`` with redirected output, ``setsid nohup`` with closed stdio, a double fork with
closed stdio), records its pid in ``tmp_path``, then ends normally or keeps running until the
timeout or an abort. Afterwards no recorded process may be alive.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import LocalShellOperations, ShellOptions, create_shell_tool
from prism.core import AbortController, ToolResult, render_tool_result
from prism.core.testing import scaled

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "linux", reason="the subreaper supervisor is Linux-only"),
]

SHAPES = {
    "setsid_redirected": "setsid sh -c 'sleep 1000 >/dev/null 2>&1 & echo $! > {pid}'",
    "setsid_nohup_closed": "setsid nohup sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {pid}",
    "double_fork_closed_stdio": (
        "( exec 0<&- 1>&- 2>&-; ( sleep 1000 & echo $! > {pid} ) & ) ; "
        "sh -c 'exec 0<&- 1>&- 2>&-; setsid sh -c \"sleep 1000 & echo \\$! > {pid}2\" &'"
    ),
}


def _pid_texts(directory: Path, prefix: str = "daemon.pid") -> list[str]:
    return [f.read_text().strip() for f in sorted(directory.glob(f"{prefix}*"))]


async def recorded_pids(tmp_path: Path, expected: int, prefix: str = "daemon.pid") -> list[int]:
    with anyio.fail_after(scaled(10)):
        while True:
            texts = _pid_texts(tmp_path, prefix)
            if len(texts) >= expected and all(texts):
                return [int(t) for t in texts]
            await anyio.sleep(0.02)


def expected_count(shape: str) -> int:
    return 2 if shape == "double_fork_closed_stdio" else 1


@contextlib.contextmanager
def reaping(pids: list[int], is_alive: Callable[[int], bool]) -> Any:
    """Kill (only) the recorded processes if a failing assertion left them running."""
    try:
        yield
    finally:
        for pid in pids:
            if is_alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def daemon_command(tmp_path: Path, shape: str, attempt: int, ending: str) -> tuple[str, Path]:
    """The shape's command recording into ``daemon.pid<attempt>*``; it ends (or, unless the
    ending is normal, starts waiting) only once every pid is recorded."""
    base = tmp_path / f"daemon.pid{attempt}"
    files = " ".join(str(base) + suffix for suffix in ("", "2")[: expected_count(shape)])
    command = SHAPES[shape].format(pid=base)
    command += f"; for f in {files}; do while [ ! -s $f ]; do sleep 0.01; done; done"
    if ending != "normal":
        command += "; echo started; exec sleep 600"
    return command, base


async def run_collecting(
    shell: Any, command: str, context: Any, pids: list[int], *, count: int, prefix: str,
    timeout: float | None = None, abort: bool = False,
) -> ToolResult:  # fmt: skip
    """Run ``command``, adding its daemons' pids to ``pids`` once all ``count`` are recorded
    (then aborting it if ``abort``); its result."""
    controller = AbortController()
    results: list[ToolResult] = []
    arguments: dict[str, object] = {"command": command}
    if timeout is not None:
        arguments["timeout"] = timeout

    async def call() -> None:
        results.append(await shell.execute(arguments, context(controller.signal)))

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        pids += await recorded_pids(Path(prefix).parent, count, Path(prefix).name)
        if abort:
            controller.abort("user pressed stop")
    return results[0]


# A timeout only proves something once every daemon is running and recorded, so the test
# tries the shortest timeout first and doubles it while the command was cut off before that
# (each attempt still checks that nothing survived); 2 s, the last, covers a loaded machine.
TIMEOUTS = (0.5, 1.0, 2.0)


async def first_conclusive_timeout(
    shell: Any, tmp_path: Path, shape: str, context: Any, pids: list[int],
    is_alive: Callable[[int], bool],
) -> ToolResult:  # fmt: skip
    """The result of the first timeout that hit the command with every daemon recorded."""
    count = expected_count(shape)
    for attempt, timeout in enumerate(TIMEOUTS[:-1]):
        command, base = daemon_command(tmp_path, shape, attempt, "timeout")
        arguments = {"command": command, "timeout": timeout}
        result: ToolResult = await shell.execute(arguments, context())
        recorded = _pid_texts(tmp_path, base.name)
        pids += [int(t) for t in recorded if t]
        assert [pid for pid in pids if is_alive(pid)] == []
        if "started" in render_tool_result(result).splitlines():
            assert len(recorded) == count and all(recorded)
            return result
    command, base = daemon_command(tmp_path, shape, len(TIMEOUTS) - 1, "timeout")
    return await run_collecting(
        shell, command, context, pids, count=count, prefix=str(base), timeout=TIMEOUTS[-1]
    )


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("ending", ["normal", "timeout", "abort"])
async def test_detached_processes_never_survive_the_command(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool], shape: str, ending: str
) -> None:
    shell = create_shell_tool(tmp_path)
    pids: list[int] = []
    with reaping(pids, is_alive), anyio.fail_after(scaled(30)):
        if ending == "timeout":
            result = await first_conclusive_timeout(shell, tmp_path, shape, context, pids, is_alive)
        else:
            command, base = daemon_command(tmp_path, shape, 0, ending)
            result = await run_collecting(
                shell, command, context, pids, count=expected_count(shape), prefix=str(base),
                abort=ending == "abort",
            )  # fmt: skip
        codes = {"normal": None, "timeout": "shell_timeout", "abort": "aborted"}
        assert (result.error.code if result.error else None) == codes[ending]
        assert [pid for pid in pids if is_alive(pid)] == []


async def test_keep_background_processes_keeps_a_setsid_daemon(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    operations = LocalShellOperations(keep_background_processes=True)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=operations))
    command = SHAPES["setsid_redirected"].format(pid=tmp_path / "daemon.pid")
    pids: list[int] = []
    with reaping(pids, is_alive), anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": command}, context())
        pids += await recorded_pids(tmp_path, 1)
        assert not result.is_error
        assert is_alive(pids[0])


async def test_exit_status_signals_and_environment_pass_through_the_supervisor(
    tmp_path: Path, context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    monkeypatch.setenv("LANG", "C")
    shell = create_shell_tool(tmp_path, options=ShellOptions(env_allowlist=["PATH", "LANG"]))
    script = (
        'yes | head -n 1 >/dev/null; echo "pipe=${PIPESTATUS[0]}"; '
        'echo "ctype=${LC_CTYPE-unset}"; trap -p TERM; exit 7'
    )
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": script}, context())
        killed = await shell.execute({"command": "kill -TERM $$"}, context())
    text = result.content[0].text  # type: ignore[union-attr]
    assert text == "pipe=141\nctype=unset\n\nCommand exited with code 7"
    assert "SIGTERM (exit code -15)" in killed.content[0].text  # type: ignore[union-attr]


async def test_a_stubborn_detached_daemon_is_killed_after_the_grace(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    command = (
        f"setsid sh -c 'trap \"\" TERM; echo $$ > {tmp_path}/daemon.pid; exec sleep 1000' "
        ">/dev/null 2>&1 & sleep 0.2"
    )
    operations = LocalShellOperations(kill_grace_seconds=0.3)
    shell = create_shell_tool(tmp_path, options=ShellOptions(operations=operations))
    pids: list[int] = []
    with reaping(pids, is_alive), anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": command}, context())
        pids += await recorded_pids(tmp_path, 1)
        assert not result.is_error
        assert not is_alive(pids[0])


async def test_killing_its_own_process_group_does_not_free_a_daemon(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    command = SHAPES["setsid_redirected"].format(pid=tmp_path / "daemon.pid")
    command += f"; while [ ! -s {tmp_path}/daemon.pid ]; do sleep 0.01; done; kill -KILL 0"
    shell = create_shell_tool(tmp_path)
    pids: list[int] = []
    with reaping(pids, is_alive), anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": command}, context())
        pids += await recorded_pids(tmp_path, 1)
        assert "SIGKILL" in result.content[0].text  # type: ignore[union-attr]
        assert not is_alive(pids[0])
