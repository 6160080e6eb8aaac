"""The HTTP listener under the red team's variants (issue 30): idle connections, refused
requests, one token hoarding sessions, token-file ownership, opening bodies, abbreviated flags.
Each test reproduces an attack that worked before the fix and asserts the safe behaviour."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from prism.core.testing import scaled

from .conftest import BASE_ENV, free_port, http_server, sdk_client
from .test_redteam_http import (
    ENV,
    INITIALIZED,
    LIST,
    TOKEN,
    exchange,
    project,
    request,
    session_id,
    status,
)

pytestmark = pytest.mark.anyio

AUTH = {"Authorization": f"Bearer {TOKEN}", "mcp-protocol-version": "2025-11-25"}


@contextlib.contextmanager
def limited_server(root: Path, tmp: Path, nofile: int, *args: str) -> Iterator[tuple[int, Path]]:
    """The console script under ``prlimit --nofile`` (a 1024 soft limit is a common default)."""
    port = free_port()
    stderr = tmp / f"server-{port}.err"
    command = ["prlimit", f"--nofile={nofile}:{nofile}", sys.executable, "-m",
               "prism.coding_server", "--root", str(root), "--no-sandbox", "--http", str(port),
               *args]  # fmt: skip
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            command, env={**BASE_ENV, **ENV}, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=sink, start_new_session=True,
        )  # fmt: skip
    try:
        yield port, stderr
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


async def wait_listening(port: int) -> None:
    with anyio.fail_after(scaled(60)):
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
                continue
            await stream.aclose()
            return


async def test_idle_unauthenticated_connections_do_not_lock_out_a_token_holder(
    tmp_path: Path,
) -> None:
    """F1: connections that never send a request (or stop mid-header) are held open forever
    without authentication; enough of them use every file descriptor the server may open."""
    root = project(tmp_path)
    with limited_server(root, tmp_path, 256) as (port, stderr):
        await wait_listening(port)
        with anyio.fail_after(scaled(120)):
            before = await exchange(port, request(port, headers=AUTH))
            idle: list[socket.socket] = []
            try:
                for i in range(300):  # bounded: a little over the server's descriptor limit
                    sock = socket.create_connection(("127.0.0.1", port), timeout=scaled(5))
                    if i % 2:  # half of them send an incomplete header block
                        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
                    idle.append(sock)
                await anyio.sleep(scaled(2))  # past any header timeout worth having
                during = await exchange(port, request(port, headers=AUTH))
            finally:
                for sock in idle:
                    sock.close()
            after = await exchange(port, request(port, headers=AUTH))
    assert status(before) == 200 and status(after) == 200  # the control: the token works
    assert status(during) == 200, (during[:200], stderr.read_text()[-500:])


async def test_a_rejected_sessionless_request_does_not_evict_a_live_session(
    tmp_path: Path,
) -> None:
    """F2: a token holder's ``tools/list`` without a session id is refused with 400 "Missing
    session ID", yet the answer carries a new ``mcp-session-id``: a session was opened for a
    refused request, and at the cap it evicts a legitimate idle session."""
    root = project(tmp_path)
    async with http_server(root, "--max-sessions", "1", env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(60)):
            sid = session_id(await exchange(port, request(port, headers=AUTH)))
            initialized = {**AUTH, "mcp-session-id": sid}
            await exchange(port, request(port, body=INITIALIZED, headers=initialized))
            refused = await exchange(port, request(port, body=LIST, headers=AUTH))
            still = await exchange(port, request(port, body=LIST, headers=initialized))
    assert status(refused) == 400
    assert b"mcp-session-id" not in refused.lower()
    assert status(still) == 200, still[:300]


async def test_a_caller_token_cannot_lock_the_approver_token_out(tmp_path: Path) -> None:
    """F3: a caller-token client opens ``max_sessions`` sessions and holds one GET stream on
    each (never reading it). Every session counts as busy, so nothing is evicted, the idle
    timeout never fires, and the approver-token client (and every fresh client) gets 503 for
    as long as the sockets stay open: one token holder denies the approval owner."""
    root = project(tmp_path)
    approver_file = tmp_path / "approver.token"
    approver_file.write_text("redteam-approver-token-9f8e7d6c5b\n")
    approver_file.chmod(0o600)
    flags = ("--approver-token-file", str(approver_file), "--max-sessions", "4",
             "--session-idle-seconds", "1")  # fmt: skip
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        port = server.port
        streams = []
        with anyio.fail_after(scaled(90)):
            try:
                for _ in range(4):
                    sid = session_id(await exchange(port, request(port, headers=AUTH)))
                    headers = {**AUTH, "mcp-session-id": sid}
                    await exchange(port, request(port, body=INITIALIZED, headers=headers))
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                    streams.append(stream)
                    get = request(port, method="GET", body=None, headers=headers)
                    await stream.send(get.replace(b"Connection: close\r\n", b""))
                    assert (await stream.receive()).startswith(b"HTTP/1.1 200")
                await anyio.sleep(scaled(3))  # three idle timeouts
                outcome = "connected"
                try:
                    async with sdk_client(server.url, "redteam-approver-token-9f8e7d6c5b") as s:
                        await s.list_tools()
                except Exception as error:  # the SDK raises an ExceptionGroup on 503
                    outcome = f"refused: {type(error).__name__}"
                blocked = await exchange(port, request(port, headers=AUTH))
            finally:
                for stream in streams:
                    await stream.aclose()
    assert status(blocked) != 503, blocked[:200]
    assert outcome == "connected", outcome


def run_until_listening(root: Path, tmp: Path, *args: str) -> tuple[int | None, str]:
    """Start the server with ``args``; the exit status, or None once it listens, and stderr."""
    port = free_port()
    stderr = tmp / f"start-{port}.err"
    command = [sys.executable, "-m", "prism.coding_server", "--root", str(root),
               "--no-sandbox", "--http", str(port), *args]  # fmt: skip
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            command, env=BASE_ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=sink, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + scaled(60)
    try:
        while process.poll() is None:
            assert time.monotonic() < deadline, "the server neither listened nor exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            except OSError:
                time.sleep(0.05)
                continue
            return None, stderr.read_text()
        return process.returncode, stderr.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def test_a_token_file_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    """F4: ``--token-file`` checks only the mode. A 0600 file owned by another user (who wrote
    it, or planted it, or a symlink to it, at the path the operator names) is accepted, so that
    user holds the bearer token. ssh's StrictModes refuses such files; so should this."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file another owner (chown)")
    root = project(tmp_path)
    planted = tmp_path / "token"
    planted.write_text("planted-token-0123456789abcdef\n")
    planted.chmod(0o600)
    os.chown(planted, 65534, 65534)
    code, stderr = run_until_listening(root, tmp_path, "--token-file", str(planted))
    assert code == 2, stderr
    assert "owned by" in stderr or "owner" in stderr, stderr


def test_a_token_file_in_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    """F4b: a 0600 token file in a world-writable (non-sticky) directory is accepted; any local
    user could have replaced it with a file of their own before the server read it."""
    root = project(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    token_file = shared / "token"
    token_file.write_text("operator-token-0123456789abcdef\n")
    token_file.chmod(0o600)
    code, stderr = run_until_listening(root, tmp_path, "--token-file", str(token_file))
    assert code == 2, stderr
    assert str(shared) in stderr, stderr


def test_a_token_file_in_a_sticky_shared_directory_is_accepted(tmp_path: Path) -> None:
    """The /tmp case: others may write the directory, but the sticky bit stops them from
    replacing a file they do not own, so the server starts."""
    shared = tmp_path / "sticky"
    shared.mkdir()
    shared.chmod(0o1777)
    token_file = shared / "token"
    token_file.write_text("operator-token-0123456789abcdef\n")
    token_file.chmod(0o600)
    code, stderr = run_until_listening(project(tmp_path), tmp_path, "--token-file", str(token_file))
    assert code is None, stderr


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_sessionless_request_bodies_stay_within_the_documented_bound(tmp_path: Path) -> None:
    """F5: the docs bound memory by max_sessions x max_requests_per_session x max_request_bytes
    (here 1 x 1 x 1 MiB). ``initialize`` POSTs belong to no session, so a token holder can keep
    any number of almost-complete 1 MiB bodies buffered at once (measured: 60 -> +80 MiB)."""
    root = project(tmp_path)
    size = 1024 * 1024
    flags = ("--max-sessions", "1", "--max-requests-per-session", "1",
             "--max-request-bytes", str(size))  # fmt: skip
    head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer " + TOKEN +
            "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json"
            f"\r\nContent-Length: {size - 100}\r\n\r\n")  # fmt: skip
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        pid, port = server.process.pid, server.port
        held = []
        with anyio.fail_after(scaled(120)):
            try:
                await exchange(port, request(port, headers=AUTH))  # warm up
                before = rss_bytes(pid)
                for _ in range(60):  # bounded
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                    held.append(stream)
                    await stream.send(head.format(port=port).encode() + b" " * (size - 1100))
                growth = 0
                with anyio.move_on_after(scaled(5)):  # give the server time to buffer them
                    while growth < 32 * 1024 * 1024:
                        await anyio.sleep(0.1)
                        growth = rss_bytes(pid) - before
            finally:
                for stream in held:
                    await stream.aclose()
    assert growth < 16 * 1024 * 1024, f"the server grew {growth / 2**20:.0f} MiB"


def test_the_no_auth_acknowledgement_cannot_be_abbreviated(tmp_path: Path) -> None:
    """F6: argparse accepts unique prefixes, so ``--no-a --i`` turns authentication off. The
    docs promise one explicit, greppable flag (``--i-understand-anyone-local-can-run-commands``);
    a script with ``--i`` does not contain it. ``ArgumentParser(allow_abbrev=False)`` fixes it."""
    code, stderr = run_until_listening(project(tmp_path), tmp_path, "--no-a", "--i")
    assert code == 2, stderr
