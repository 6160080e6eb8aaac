"""BubblewrapSandbox against the real kernel: isolation, rlimits, timeout/abort, fail closed."""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from pathlib import Path

import anyio
import pytest

from prism.coding_security._sandbox._bwrap import BubblewrapSandbox
from prism.coding_security._sandbox._protocol import SandboxUnavailableError
from prism.coding_tools import ExecResult
from prism.core import AbortController, AbortSignal
from prism.core.testing import abort_after, scaled

from .conftest import BWRAP_PROBLEM

needs_bwrap = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=BWRAP_PROBLEM or "")
pytestmark = pytest.mark.anyio


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "ws"
    root.mkdir()
    return root


@pytest.fixture
def extra(tmp_path: Path) -> Path:
    path = tmp_path.resolve() / "extra"
    path.mkdir()
    return path


@pytest.fixture
def outside(host_dir: Path) -> Path:
    """A host directory outside every sandbox root (conftest's ``host_dir``)."""
    return host_dir


async def _run(
    sandbox: BubblewrapSandbox,
    command: str,
    cwd: Path,
    *,
    signal: AbortSignal | None = None,
    timeout_seconds: float | None = None,
) -> tuple[ExecResult, str]:
    chunks: list[bytes] = []
    with anyio.fail_after(scaled(30)):
        result = await sandbox.exec(
            command,
            cwd=str(cwd),
            env=dict(os.environ),
            on_data=chunks.append,
            signal=signal,
            timeout_seconds=timeout_seconds,
        )
    return result, b"".join(chunks).decode("utf-8", "replace")


@needs_bwrap
async def test_runs_and_streams_merged_output_with_the_exit_code(workspace: Path) -> None:
    result, output = await _run(
        BubblewrapSandbox(root=workspace), "echo out; echo err >&2; exit 3", workspace
    )
    assert result.exit_code == 3
    assert "out" in output
    assert "err" in output


@needs_bwrap
async def test_only_the_workspace_and_writable_paths_are_writable(
    workspace: Path, outside: Path, extra: Path
) -> None:
    sandbox = BubblewrapSandbox(root=workspace, writable=[extra])
    script = (
        f"echo a > {workspace}/in.txt; echo b > {extra}/x.txt; "
        f"echo c > {outside}/canary; touch /etc/prism-canary-{uuid.uuid4().hex}; true"
    )
    _, output = await _run(sandbox, script, workspace)
    assert (workspace / "in.txt").read_text() == "a\n"
    assert (extra / "x.txt").read_text() == "b\n"
    assert not (outside / "canary").exists()
    assert "Read-only file system" in output


@needs_bwrap
async def test_tmp_is_private(workspace: Path) -> None:
    marker = f"prism-host-{uuid.uuid4().hex}"
    host_file = Path(tempfile.gettempdir()) / marker
    host_file.write_text("host")
    try:
        _, output = await _run(
            BubblewrapSandbox(root=workspace),
            f"ls /tmp/{marker} 2>&1; echo inside > /tmp/{marker}-in; cat /tmp/{marker}-in",
            workspace,
        )
    finally:
        host_file.unlink()
    assert "No such file" in output
    assert "inside" in output
    assert not (Path(tempfile.gettempdir()) / f"{marker}-in").exists()


@needs_bwrap
async def test_no_capabilities_no_remount_no_nested_user_namespaces(
    workspace: Path, outside: Path
) -> None:
    script = (
        "grep CapEff /proc/self/status; "
        f"mount -o remount,rw / && echo REMOUNTED; echo x > {outside}/after-remount; "
        "unshare -U true && echo NESTED-USERNS; true"
    )
    _, output = await _run(BubblewrapSandbox(root=workspace), script, workspace)
    assert "CapEff:\t0000000000000000" in output
    assert "REMOUNTED" not in output
    assert "NESTED-USERNS" not in output
    assert not (outside / "after-remount").exists()


async def _loopback_attempt(sandbox: BubblewrapSandbox, cwd: Path) -> tuple[int, str]:
    accepted: list[object] = []
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def handle(stream: anyio.abc.SocketStream) -> None:
        accepted.append(stream)
        await stream.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        _, output = await _run(sandbox, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED", cwd)
        await anyio.sleep(0.1)
        group.cancel_scope.cancel()
    await listener.aclose()
    return len(accepted), output


@needs_bwrap
async def test_network_is_isolated_unless_granted(workspace: Path) -> None:
    isolated = BubblewrapSandbox(root=workspace)
    assert isolated.capabilities.network_isolated
    count, output = await _loopback_attempt(isolated, workspace)
    assert count == 0
    assert "CONNECTED" not in output
    granted = BubblewrapSandbox(root=workspace, network=True)
    assert not granted.capabilities.network_isolated
    count, output = await _loopback_attempt(granted, workspace)
    assert count == 1
    assert "CONNECTED" in output


@needs_bwrap
async def test_rlimits_apply_inside(workspace: Path) -> None:
    sandbox = BubblewrapSandbox(
        root=workspace,
        max_memory_bytes=2 * 1024**3,
        max_cpu_seconds=7.5,
        max_file_size_bytes=1024 * 1024,
        max_open_files=64,
    )
    script = "ulimit -v; ulimit -t; ulimit -f; ulimit -n; head -c 2000000 /dev/zero > big; true"
    _, output = await _run(sandbox, script, workspace)
    assert output.split()[:4] == [str(2 * 1024**2), "8", "1024", "64"]
    assert (workspace / "big").stat().st_size <= 1024 * 1024


def _survivors(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry))
    return found


@needs_bwrap
async def test_timeout_kills_the_whole_tree(workspace: Path) -> None:
    marker = f"{time.time_ns() % 1000}.{os.getpid()}"
    command = f"(setsid sleep 4{marker} &) ; nohup sleep 5{marker} & sleep 6{marker}"
    started = time.monotonic()
    result, _ = await _run(
        BubblewrapSandbox(root=workspace), command, workspace, timeout_seconds=0.5
    )
    assert result.timed_out
    assert result.exit_code is None
    assert time.monotonic() - started < scaled(5)
    await anyio.sleep(0.2)
    assert _survivors(marker) == []


@needs_bwrap
async def test_abort_kills_and_reports_aborted(workspace: Path) -> None:
    controller = AbortController()
    marker = f"7{os.getpid()}.{time.time_ns() % 1000}"

    async with anyio.create_task_group() as group:
        group.start_soon(abort_after, controller, 0.3, "stop")
        result, _ = await _run(
            BubblewrapSandbox(root=workspace),
            f"sleep {marker}",
            workspace,
            signal=controller.signal,
        )
    assert result.aborted
    assert result.exit_code is None
    await anyio.sleep(0.2)
    assert _survivors(marker) == []


async def test_missing_bwrap_fails_closed(workspace: Path) -> None:
    sandbox = BubblewrapSandbox(root=workspace, bwrap_path=str(workspace / "no-bwrap"))
    with pytest.raises(SandboxUnavailableError, match="not installed"):
        await _run(sandbox, "touch canary", workspace)
    assert not (workspace / "canary").exists()


@pytest.mark.parametrize("fake", ["/bin/false", "/bin/true"])
async def test_bwrap_that_cannot_start_fails_closed(workspace: Path, fake: str) -> None:
    sandbox = BubblewrapSandbox(root=workspace, bwrap_path=fake)
    with pytest.raises(SandboxUnavailableError, match="could not start"):
        await _run(sandbox, "touch canary", workspace)
    assert not (workspace / "canary").exists()


@needs_bwrap
async def test_bwrap_diagnostics_become_the_error_not_output(workspace: Path) -> None:
    chunks: list[bytes] = []
    with pytest.raises(SandboxUnavailableError, match="Can't chdir"), anyio.fail_after(scaled(30)):
        await BubblewrapSandbox(root=workspace).exec(
            "true", cwd=str(workspace / "missing"), env={}, on_data=chunks.append
        )
    assert chunks == []


@needs_bwrap
async def test_a_symlink_swapped_in_after_the_check_still_cannot_write_outside(
    workspace: Path, outside: Path
) -> None:
    """The TOCTOU residual of path checks: the sandbox's read-only mounts close it."""
    checked = workspace / "build"
    checked.mkdir()
    script = f"rmdir build && ln -s {outside} build && echo pwned > build/canary; true"
    _, output = await _run(BubblewrapSandbox(root=workspace), script, workspace)
    assert (workspace / "build").is_symlink()
    assert not (outside / "canary").exists()
    assert "Read-only file system" in output
