"""The coding server called by Prism's own bridge: built from the same command-line options in
this process (``InMemoryTransport``) for what the served tools do, and as a real subprocess over
stdio for what needs one (process trees, the environment, the sandbox, the ledger file).

Both backends. Most tests run with ``--no-sandbox`` (fast, and pids are the host's); one runs
the default (bubblewrap when it works here).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import inspect
import json
import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_security import BubblewrapSandbox
from prism.coding_server import build_server
from prism.coding_server._cli import parse_options
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
    InMemoryTransport,
    McpBridgeOptions,
    McpClientFeatures,
    McpToolBridge,
    StdioTransport,
    connect_mcp_tools,
)

from .conftest import BASE_ENV, http_server

pytestmark = pytest.mark.anyio

SECRET = "sk-served-7d1e4b9a0c3f2856"


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
async def in_memory(
    root: Path, *options: str, user: User | None = None
) -> AsyncIterator[McpToolBridge]:
    """The server the console script would build from ``options``, served in this process."""
    built = await build_server(parse_options(["--root", str(root), *options]))
    try:
        async with connect(InMemoryTransport(built.server), user) as bridge:
            yield bridge
    finally:
        if built.ledger is not None:
            built.ledger.close()


@contextlib.asynccontextmanager
async def served(
    root: Path, *options: str, user: User | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[McpToolBridge]:
    """``python -m prism.coding_server`` as a real subprocess over stdio."""
    args = ("-m", "prism.coding_server", "--root", str(root), *options)
    stdio = StdioTransport(sys.executable, args=args, env={**BASE_ENV, **(env or {})})
    async with connect(stdio, user) as bridge:
        yield bridge


@contextlib.asynccontextmanager
async def connect(transport: Any, user: User | None) -> AsyncIterator[McpToolBridge]:
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
        transport=transport,
        options=McpBridgeOptions(
            name_prefix="",
            connect_timeout_seconds=30,
            call_timeout_seconds=30,
            client_features=features,
            protocol_mode=mode,
        ),
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
        async with in_memory(tmp_path, "--no-sandbox") as bridge:
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
        async with in_memory(tmp_path, "--no-sandbox", "--read-only") as bridge:
            names = sorted(t.name for t in bridge.tools)
    assert names == ["read", "shell"]


async def test_read_only_never_runs_a_brace_made_expansion(tmp_path: Path) -> None:
    """Issue 24: brace expansion made `${_@P}`, which bash then expanded (running `$(touch X)`)."""
    with anyio.fail_after(scaled(60)):
        async with in_memory(tmp_path, "--no-sandbox", "--read-only") as bridge:
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
        async with in_memory(tmp_path, "--no-sandbox", user=user) as bridge:
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
        async with in_memory(tmp_path, "--no-sandbox") as bridge:
            result = await call(bridge, "shell", command="python3 mark.py")
    assert result.error is not None
    assert not (tmp_path / "marked.txt").exists()
    # Nobody was asked, and the result says so (not "denied by the user").
    assert "no one could be asked" in text(result)
    assert "did not declare the elicitation capability" in text(result)
    assert "denied by the user" not in text(result)


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


def _refused_start(*args: str, env: dict[str, str] | None = None) -> str:
    """Start the server CLI with ``args``; it must exit 2 before serving; returns its stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "prism.coding_server", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    return done.stderr


def test_an_explicit_sandbox_refuses_to_start_without_bubblewrap(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    stderr = _refused_start("--root", str(tmp_path), "--sandbox", env=env)
    assert "--sandbox" in stderr and "bubblewrap" in stderr


def test_a_root_that_is_not_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    stderr = _refused_start("--root", str(missing))
    assert "roots" in stderr and str(missing) in stderr


HTTP_TOKEN = "served-http-token-0a1b2c3d4e5f"


async def test_http_serves_on_loopback_with_the_same_tools(tmp_path: Path) -> None:
    from prism.mcp import StreamableHttpTransport

    root = tmp_path / "root"
    root.mkdir()
    (root / "hello.txt").write_text("hello over http\n")
    env = {"PRISM_CODING_SERVER_TOKEN": HTTP_TOKEN}
    async with http_server(root, "--read-only", env=env, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            http = StreamableHttpTransport(
                server.url, headers={"Authorization": f"Bearer {HTTP_TOKEN}"}
            )
            async with connect_mcp_tools(
                server_id="coding",
                transport=http,
                options=McpBridgeOptions(name_prefix="", connect_timeout_seconds=30),
            ) as bridge:
                names = sorted(t.name for t in bridge.tools)
                result = await call(bridge, "read", path="hello.txt")
    assert names == ["read", "shell"]
    assert result.error is None and "hello over http" in text(result)


async def test_approve_writes_asks_before_every_write(tmp_path: Path) -> None:
    no = User(approve=False)
    with anyio.fail_after(scaled(60)):
        async with in_memory(tmp_path, "--no-sandbox", "--approve-writes", user=no) as bridge:
            result = await call(bridge, "write", path="new.txt", content="hi")
        async with in_memory(tmp_path, "--no-sandbox") as bridge:
            unasked = await call(bridge, "write", path="free.txt", content="hi")
    assert result.error is not None and no.asked
    assert not (tmp_path / "new.txt").exists()
    assert unasked.error is None and (tmp_path / "free.txt").read_text() == "hi"


# Encoded secrets through MCP: a tool cannot return base64, hex or the reverse of a credential,
# because the served tools never get it (masked files, refused reads, a minimal environment).
# Redaction itself is best-effort; see docs/mcp-server.md.

TOKEN = "ghp_prismEncodedLeak0123456789abcdef"


def encodings(secret: str) -> list[str]:
    """The secret in the forms an exfiltrating command would print."""
    raw = secret.encode()
    forms = [secret, secret[::-1], raw.hex(), raw.hex().upper()]
    for shift in range(3):  # base64 of the secret at each alignment inside a larger text
        encoded = base64.b64encode(b"x" * shift + raw).decode()
        forms.append(encoded[4 + (shift and 4) : -4])
    return forms


def decoded_views(output: str) -> list[bytes]:
    """Every base64-looking run of ``output`` decoded (and gunzipped when it is gzip)."""
    views = []
    for run in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", output):
        with contextlib.suppress(ValueError):
            data = base64.b64decode(run + "=" * (-len(run) % 4))
            views.append(data)
            if data.startswith(b"\x1f\x8b"):
                with contextlib.suppress(OSError, EOFError):
                    views.append(gzip.decompress(data))
    return views


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".git-credentials").write_text(f"https://user:{TOKEN}@github.com\n")
    (home / ".config" / "gh" / "hosts.yml").write_text(f"github.com:\n  oauth_token: {TOKEN}\n")
    return home


async def test_no_encoding_of_a_credential_leaves_through_the_served_tools(home: Path) -> None:
    if not BubblewrapSandbox(root=str(home)).capabilities.user_namespace:
        pytest.skip("bwrap is missing or cannot create the sandbox's user namespaces here")
    env = {"HOME": str(home), "GH_TOKEN": TOKEN}
    attacks = (
        "base64 ~/.git-credentials; base64 -w0 .config/gh/hosts.yml; rev ~/.git-credentials",
        "od -An -tx1 ~/.git-credentials | tr -d ' \\n'; xxd -p .git-credentials",
        'printf %s "$GH_TOKEN" | base64; printf %s "$GH_TOKEN" | rev; env | base64 -w0',
        "cat ~/.git-credentials ~/.config/gh/hosts.yml | gzip | base64 -w0",
    )
    with anyio.fail_after(scaled(120)):
        async with served(home, "--sandbox", env=env) as bridge:
            outputs = [text(await call(bridge, "shell", command=f"{a}; true")) for a in attacks]
            reads = [
                await call(bridge, "read", path=path)
                for path in (
                    ".git-credentials",
                    "~/.config/gh/hosts.yml",
                    str(home / ".git-credentials"),
                )
            ]
    joined = "\n".join(outputs)
    for form in encodings(TOKEN):
        assert form not in joined, form
    for view in decoded_views(joined):
        assert TOKEN.encode() not in view
    for result in reads:
        assert result.error is not None
        assert "credentials" in result.error.message
        assert TOKEN not in text(result)
