"""Who may use ``prism-coding-server --http``, and who approves: the real console script,
driven by the official MCP SDK client over Streamable HTTP (and stdio). Both backends."""

from __future__ import annotations

import contextlib
import signal
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from prism.core.testing import scaled

from .conftest import BASE_ENV, accept, http_server, sdk_client, text_of

pytestmark = pytest.mark.anyio

TOKEN = "test-token-5f1c9a7e3b2d4806"
APPROVER_TOKEN = "approver-token-9e8d7c6b5a4f3e2d"
MARK = "open('ran.txt', 'w').write('ran')\n"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "0"}},
}  # fmt: skip
ACCEPTS = {"Accept": "application/json, text/event-stream"}


def project(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "mark.py").write_text(MARK)
    return root


async def attack(url: str) -> str:
    """An unauthenticated client writes a file, then runs Python approving its own prompt."""
    try:
        async with sdk_client(url, elicit=accept) as session:
            await session.call_tool("write", {"path": "written.txt", "content": "pwned"})
            await session.call_tool("shell", {"command": "python3 mark.py"})
    except Exception as error:
        return f"refused: {type(error).__name__}"
    return "connected"


async def test_an_unauthenticated_client_can_neither_write_nor_run_nor_approve(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    async with http_server(root, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            outcome = await attack(server.url)
            assert outcome.startswith("refused"), outcome
            assert not (root / "written.txt").exists() and not (root / "ran.txt").exists()
            async with httpx2.AsyncClient() as raw:
                bare = await raw.post(server.url, json=INITIALIZE, headers=ACCEPTS)
                wrong = await raw.post(
                    server.url, json=INITIALIZE, headers={**ACCEPTS, "Authorization": "Bearer x"}
                )
            token_file = server.token_file()
            mode = stat.S_IMODE(token_file.stat().st_mode)
            token = token_file.read_text().strip()
            async with sdk_client(server.url, token) as session:
                tools = await session.list_tools()
    for answer in (bare, wrong):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert mode == 0o600 and len(token) >= 32
    assert sorted(t.name for t in tools.tools) == ["edit", "read", "shell", "write"]


async def test_a_token_holder_cannot_approve_its_own_calls_over_http(tmp_path: Path) -> None:
    root = project(tmp_path)
    asked: list[str] = []

    async def answer_yes(ctx: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return await accept(ctx, params)

    env = {"PRISM_CODING_SERVER_TOKEN": TOKEN}
    async with http_server(root, env=env, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            async with sdk_client(server.url, TOKEN, answer_yes) as session:
                wrote = await session.call_tool("write", {"path": "ok.txt", "content": "fine"})
                ran = await session.call_tool("shell", {"command": "python3 mark.py"})
    assert not wrote.is_error and (root / "ok.txt").read_text() == "fine"
    assert ran.is_error and not (root / "ran.txt").exists()
    message = text_of(ran)
    assert "no one could be asked" in message and "may not approve its own calls" in message
    assert "denied by the user" not in message
    assert asked == []


APPROVER = """\
import os, pathlib, sys
here = pathlib.Path(__file__).parent
with open(here / "asked.log", "a") as log:
    log.write(os.environ["PRISM_APPROVAL_REQUEST"] + "|" + sys.stdin.readline())
sys.exit(0 if (here / "allow").exists() else 1)
"""


async def test_the_operators_approver_command_decides_over_http(tmp_path: Path) -> None:
    root = project(tmp_path)
    approver = tmp_path / "approver"
    approver.mkdir()
    (approver / "approve.py").write_text(APPROVER)
    asked: list[str] = []

    async def answer_yes(ctx: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return await accept(ctx, params)

    env = {"PRISM_CODING_SERVER_TOKEN": TOKEN}
    flags = ("--approver", f"{sys.executable} {approver / 'approve.py'}")
    async with http_server(root, *flags, env=env, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            async with sdk_client(server.url, TOKEN, answer_yes) as session:
                refused = await session.call_tool("shell", {"command": "python3 mark.py"})
                assert not (root / "ran.txt").exists()
                (approver / "allow").touch()
                allowed = await session.call_tool("shell", {"command": "python3 mark.py"})
    assert refused.is_error and "denied" in text_of(refused)
    # The operator's command decided, and the result says so (not the client's user).
    assert "operator's approver denied" in text_of(refused), text_of(refused)
    assert "denied by the user" not in text_of(refused)
    assert not allowed.is_error, text_of(allowed)
    assert (root / "ran.txt").read_text() == "ran"
    lines = (approver / "asked.log").read_text().splitlines()
    assert len(lines) == 2 and all("python3 mark.py" in line for line in lines)
    env_part, stdin_part = lines[0].split("|")
    assert env_part == stdin_part
    assert asked == []


async def test_a_client_with_the_approver_token_may_approve_its_own_calls(tmp_path: Path) -> None:
    root = project(tmp_path)
    approver_file = tmp_path / "approver.token"
    approver_file.write_text(APPROVER_TOKEN + "\n")
    approver_file.chmod(0o600)
    asked: list[str] = []

    async def answer_yes(ctx: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return await accept(ctx, params)

    env = {"PRISM_CODING_SERVER_TOKEN": TOKEN}
    flags = ("--approver-token-file", str(approver_file))
    async with http_server(root, *flags, env=env, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            async with sdk_client(server.url, TOKEN, answer_yes) as session:
                plain = await session.call_tool("shell", {"command": "python3 mark.py"})
            assert not (root / "ran.txt").exists() and asked == []
            async with sdk_client(server.url, APPROVER_TOKEN, answer_yes) as session:
                owned = await session.call_tool("shell", {"command": "python3 mark.py"})
    assert plain.is_error and "may not approve its own calls" in text_of(plain)
    assert not owned.is_error, text_of(owned)
    assert len(asked) == 1 and "python3 mark.py" in asked[0]
    assert (root / "ran.txt").read_text() == "ran"


def run_script(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "prism.coding_server", "--root", str(root), "--no-sandbox", *args],
        env={**BASE_ENV, **(env or {})}, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    return done.returncode, done.stderr


def test_no_auth_is_refused_without_the_acknowledgement(tmp_path: Path) -> None:
    status, stderr = run_script(tmp_path, "--http", "0", "--no-auth")
    assert status == 2
    assert "--i-understand-anyone-local-can-run-commands" in stderr


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o644)
    status, stderr = run_script(tmp_path, "--http", "0", "--token-file", str(token_file))
    weak_status, weak_stderr = run_script(
        tmp_path, "--http", "0", env={"PRISM_CODING_SERVER_TOKEN": "short"}
    )
    assert status == 2 and "chmod 600" in stderr and str(token_file) in stderr
    assert weak_status == 2 and "PRISM_CODING_SERVER_TOKEN" in weak_stderr


async def test_no_auth_with_the_acknowledgement_warns_and_still_keeps_approvals_local(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    flags = ("--no-auth", "--i-understand-anyone-local-can-run-commands")
    async with http_server(root, *flags, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            async with sdk_client(server.url, elicit=accept) as session:
                ran = await session.call_tool("shell", {"command": "python3 mark.py"})
        warning = server.stderr()
    assert "WARNING: authentication is OFF" in warning
    assert ran.is_error and not (root / "ran.txt").exists()
    assert "may not approve its own calls" in text_of(ran)


async def test_a_token_file_is_used_as_given(tmp_path: Path) -> None:
    root = project(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    async with http_server(root, "--token-file", str(token_file), tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            async with sdk_client(server.url, TOKEN) as session:
                result = await session.call_tool("read", {"path": "mark.py"})
        notes = server.stderr()
    assert not result.is_error and "ran.txt" in text_of(result)
    assert f"bearer token from {token_file}" in notes


FLOOD = 600


async def flood_then_connect(
    server_flags: tuple[str, ...], tmp_path: Path
) -> tuple[list[int], int, str]:
    """Open ``FLOOD`` sessions and abandon them; then a fresh SDK client reads a file.
    Returns the flood's statuses, the server's RSS growth over the flood, the read's text."""
    root = project(tmp_path)
    env = {"PRISM_CODING_SERVER_TOKEN": TOKEN}
    headers = {**ACCEPTS, "Authorization": f"Bearer {TOKEN}"}
    async with http_server(root, *server_flags, env=env, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(120)):
            async with httpx2.AsyncClient(timeout=scaled(30)) as raw:
                for _ in range(50):  # warm the server's allocator first
                    await raw.post(server.url, json=INITIALIZE, headers=headers)
                before = server.rss_bytes()
                statuses = [
                    (await raw.post(server.url, json=INITIALIZE, headers=headers)).status_code
                    for _ in range(FLOOD)
                ]
                growth = server.rss_bytes() - before
            async with sdk_client(server.url, TOKEN) as session:
                result = await session.call_tool("read", {"path": "mark.py"})
    return statuses, growth, text_of(result)


async def test_abandoned_sessions_never_deny_a_fresh_client_and_memory_stays_bounded(
    tmp_path: Path,
) -> None:
    # Measured (600 sessions): ~1 MiB growth with 8 sessions at most, ~23 MiB with 10,000.
    statuses, growth, read = await flood_then_connect(("--max-sessions", "8"), tmp_path)
    assert statuses == [200] * FLOOD
    assert growth < 8 * 1024 * 1024, f"the server grew {growth / 2**20:.1f} MiB"
    assert "ran.txt" in read


@contextlib.asynccontextmanager
async def stdio_session(root: Path, elicit: Any = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "prism.coding_server", "--root", str(root), "--no-sandbox"],
        env=BASE_ENV,
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(
            read, write, read_timeout_seconds=scaled(30), elicitation_callback=elicit
        ) as session,
    ):
        await session.initialize()
        yield session


async def test_over_stdio_the_clients_user_owns_approvals_and_nobody_is_named_as_such(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    with anyio.fail_after(scaled(90)):
        async with stdio_session(root) as session:
            unasked = await session.call_tool("shell", {"command": "python3 mark.py"})
        assert not (root / "ran.txt").exists()
        async with stdio_session(root, accept) as session:
            approved = await session.call_tool("shell", {"command": "python3 mark.py"})
    assert unasked.is_error
    message = text_of(unasked)
    assert "no one could be asked" in message and "elicitation capability" in message
    assert "denied by the user" not in message
    assert not approved.is_error, text_of(approved)
    assert (root / "ran.txt").read_text() == "ran"


async def test_a_generated_token_file_is_removed_when_the_server_is_terminated(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    async with http_server(root, tmp=tmp_path) as server:
        token_file = server.token_file()
        assert token_file.exists()
        server.process.send_signal(signal.SIGTERM)
        with anyio.fail_after(scaled(30)):
            while server.process.poll() is None:
                await anyio.sleep(0.05)
    assert not token_file.exists() and not token_file.parent.exists()
