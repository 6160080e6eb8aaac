"""The coding server as a real subprocess over stdio, called by Prism's own bridge.

Both backends. Most tests run with ``--no-sandbox`` (fast, and pids are the host's); one runs
the default (bubblewrap when it works here).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    ToolExecutionContext,
    ToolResult,
    create_static_permission_policy,
    render_tool_result,
)
from prism.core.testing import scaled
from prism.mcp import (
    ElicitationRequest,
    ElicitationResponse,
    McpClientFeatures,
    McpToolBridge,
    StdioTransport,
    connect_mcp_tools,
)

pytestmark = pytest.mark.anyio

SECRET = "sk-served-7d1e4b9a0c3f2856"
BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}


class User:
    """A scripted MCP-client user who answers approval prompts and records them."""

    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.asked: list[str] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationResponse:
        self.asked.append(request.message)
        if self.approve:
            return ElicitationResponse(action="accept", content={"approve": True})
        return ElicitationResponse(action="decline")


@contextlib.asynccontextmanager
async def served(
    root: Path, *options: str, user: User | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[McpToolBridge]:
    args = ("-m", "prism.coding_server", "--root", str(root), *options)
    stdio = StdioTransport(sys.executable, args=args, env={**BASE_ENV, **(env or {})})
    features, mode = None, "auto"
    if user is not None:
        # Server-to-client requests need a back channel: the 2026-07-28 protocol has none, so a
        # client that answers approvals speaks the earlier (session) protocol.
        mode = "legacy"
        features = McpClientFeatures(
            permission=create_static_permission_policy(),
            elicitation=user.elicit,
            timeout_seconds=30,
        )
    async with connect_mcp_tools(
        server_id="coding",
        transport=stdio,
        name_prefix="",
        connect_timeout_seconds=30,
        call_timeout_seconds=30,
        client_features=features,
        protocol_mode=mode,
    ) as bridge:
        yield bridge


async def call(
    bridge: McpToolBridge, name: str, signal_: Any = None, **arguments: Any
) -> ToolResult:
    tool = next(t for t in bridge.tools if t.name == name)
    context = ToolExecutionContext(
        session_id="s",
        run_id="r",
        tool_call_id="c1",
        signal=signal_ if signal_ is not None else AbortController().signal,
    )
    result: Any = tool.execute(arguments, context)
    if inspect.isawaitable(result):
        result = await result
    assert isinstance(result, ToolResult)
    return result


def text(result: ToolResult) -> str:
    return render_tool_result(result)


async def test_tools_are_listed_and_reads_stay_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello from the root\n")
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path, "--no-sandbox") as bridge:
            names = sorted(t.name for t in bridge.tools)
            inside = await call(bridge, "read", path="hello.txt")
            outside = await call(bridge, "read", path="/etc/hostname")
            escape = await call(bridge, "read", path="../../../../etc/passwd")
    assert names == ["edit", "read", "shell", "write"]
    assert inside.error is None and "hello from the root" in text(inside)
    for denied in (outside, escape):
        assert denied.error is not None
        assert "root" not in text(denied) or "hello" not in text(denied)


async def test_read_only_hides_write_and_edit(tmp_path: Path) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path, "--no-sandbox", "--read-only") as bridge:
            names = sorted(t.name for t in bridge.tools)
    assert names == ["read", "shell"]


async def test_read_only_never_runs_a_brace_made_expansion(tmp_path: Path) -> None:
    """Issue 24: brace expansion made `${_@P}`, which bash then expanded (running `$(touch X)`)."""
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path, "--no-sandbox", "--read-only") as bridge:
            result = await call(bridge, "shell", command="true '$(touch X)'; echo {x,$}{_@P}")
            listed = await call(bridge, "shell", command="echo *")
    assert result.error is not None
    assert not (tmp_path / "X").exists()
    assert listed.error is None, text(listed)


async def test_a_command_needing_approval_is_asked_through_elicitation(tmp_path: Path) -> None:
    (tmp_path / "mark.py").write_text("open('marked.txt', 'w').write('yes')\n")
    user = User(approve=False)
    with anyio.fail_after(scaled(60)):
        # One server, one user who declines and then accepts: each call asks on its own.
        async with served(tmp_path, "--no-sandbox", user=user) as bridge:
            declined = await call(bridge, "shell", command="python3 mark.py")
            declined_asked = list(user.asked)
            assert not (tmp_path / "marked.txt").exists()
            user.approve = True
            approved = await call(bridge, "shell", command="python3 mark.py")
    assert declined.error is not None and declined_asked
    assert approved.error is None, text(approved)
    assert len(user.asked) == len(declined_asked) + 1
    assert "python3 mark.py" in user.asked[-1]
    assert (tmp_path / "marked.txt").read_text() == "yes"


async def test_without_elicitation_a_command_needing_approval_is_denied(tmp_path: Path) -> None:
    (tmp_path / "mark.py").write_text("open('marked.txt', 'w').write('yes')\n")
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path, "--no-sandbox") as bridge:
            result = await call(bridge, "shell", command="python3 mark.py")
    assert result.error is not None
    assert not (tmp_path / "marked.txt").exists()


SPAWN = """\
import os, subprocess, time
child = subprocess.Popen(["sleep", "60"])
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


async def test_cancelling_a_shell_command_kills_its_whole_process_tree(tmp_path: Path) -> None:
    (tmp_path / "spawn.py").write_text(SPAWN)
    pids_file = tmp_path / "pids.txt"
    controller = AbortController()
    pids: list[int] = []
    try:
        with anyio.fail_after(scaled(60)):
            async with served(tmp_path, "--no-sandbox", user=User(approve=True)) as bridge:
                async with anyio.create_task_group() as group:

                    async def abort_when_started() -> None:
                        while not pids_file.exists() or not pids_file.read_text().endswith("\n"):
                            await anyio.sleep(0.02)
                        pids.extend(int(p) for p in pids_file.read_text().split())
                        controller.abort("user stop")

                    group.start_soon(abort_when_started)
                    result = await call(
                        bridge, "shell", controller.signal, command="python3 spawn.py"
                    )
                assert result.error is not None
                with anyio.move_on_after(10):
                    while any(alive(pid) for pid in pids):
                        await anyio.sleep(0.05)
        assert len(pids) == 2
        assert not [pid for pid in pids if alive(pid)]
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


async def test_the_ledger_gets_one_redacted_json_line_per_record(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "config.txt").write_text(f"token = {SECRET}\n")
    ledger = tmp_path / "audit.jsonl"
    env = {"SERVED_API_TOKEN": SECRET}
    with anyio.fail_after(scaled(60)):
        async with served(root, "--no-sandbox", "--ledger", str(ledger), env=env) as bridge:
            result = await call(bridge, "read", path="config.txt")
            blocked = await call(bridge, "read", path="/etc/hostname")
    assert result.error is None and SECRET not in text(result)
    assert blocked.error is not None
    raw = ledger.read_text()
    assert SECRET not in raw and "[REDACTED]" in raw
    rows = [json.loads(line) for line in raw.splitlines()]
    by_path: dict[str, set[str]] = {}
    for row in rows:
        by_path.setdefault(row["arguments"]["path"], set()).add(row["status"])
    assert by_path["config.txt"] == {"started", "finished"}
    denied = [r for r in rows if r["arguments"]["path"] == "/etc/hostname" and r["result"]]
    assert denied and all(row["result"]["error"] for row in denied)
    assert {row["name"] for row in rows} == {"read"}
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600


async def test_the_default_runs_the_shell_in_the_sandbox_when_it_works(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("sandboxed hello\n")
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path) as bridge:
            result = await call(bridge, "shell", command="cat hello.txt")
    assert result.error is None, text(result)
    assert "sandboxed hello" in text(result)


def test_an_explicit_sandbox_refuses_to_start_without_bubblewrap(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "prism.coding_server", "--root", str(tmp_path), "--sandbox"],
        env={"PATH": str(tmp_path), "HOME": str(tmp_path)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "--sandbox" in done.stderr and "bubblewrap" in done.stderr


def test_a_root_that_is_not_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    import subprocess

    missing = tmp_path / "missing"
    done = subprocess.run(
        [sys.executable, "-m", "prism.coding_server", "--root", str(missing)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "roots" in done.stderr and str(missing) in done.stderr


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http(*args: str) -> Any:
    """The console script over HTTP in its own process group (the test kills the group)."""
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-m", "prism.coding_server", *args],
        env=BASE_ENV,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


async def test_http_serves_on_loopback_with_the_same_tools(tmp_path: Path) -> None:
    from prism.mcp import StreamableHttpTransport

    (tmp_path / "hello.txt").write_text("hello over http\n")
    port = free_port()
    process = start_http(
        "--root", str(tmp_path), "--no-sandbox", "--read-only", "--http", str(port)
    )
    try:
        with anyio.fail_after(scaled(60)):
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                except OSError:
                    await anyio.sleep(0.05)
                    continue
                await stream.aclose()
                break
            http = StreamableHttpTransport(f"http://127.0.0.1:{port}/mcp")
            async with connect_mcp_tools(
                server_id="coding", transport=http, name_prefix="", connect_timeout_seconds=30
            ) as bridge:
                names = sorted(t.name for t in bridge.tools)
                result = await call(bridge, "read", path="hello.txt")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    assert names == ["read", "shell"]
    assert result.error is None and "hello over http" in text(result)


async def test_approve_writes_asks_before_every_write(tmp_path: Path) -> None:
    no = User(approve=False)
    with anyio.fail_after(scaled(60)):
        async with served(tmp_path, "--no-sandbox", "--approve-writes", user=no) as bridge:
            result = await call(bridge, "write", path="new.txt", content="hi")
        async with served(tmp_path, "--no-sandbox") as bridge:
            unasked = await call(bridge, "write", path="free.txt", content="hi")
    assert result.error is not None and no.asked
    assert not (tmp_path / "new.txt").exists()
    assert unasked.error is None and (tmp_path / "free.txt").read_text() == "hi"
