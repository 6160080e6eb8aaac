"""The coding server as a real HTTP process for the tests, and an MCP SDK client to drive it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from prism.core.testing import scaled

BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}

Elicit = Callable[[Any, types.ElicitRequestParams], Awaitable[types.ElicitResult]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """A running ``prism-coding-server --http``: its URL, stderr so far, and the token it uses."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, stderr: Path) -> None:
        self.process, self.port, self.stderr_path = process, port, stderr
        self.url = f"http://127.0.0.1:{port}/mcp"

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def token_file(self) -> Path:
        found = re.search(r"bearer token written to (\S+) \(mode 0600\)", self.stderr())
        assert found, self.stderr()
        return Path(found.group(1))

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")


def _spawn(command: list[str], env: dict[str, str], stderr: Path) -> subprocess.Popen[bytes]:
    with stderr.open("wb") as sink:
        return subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
            start_new_session=True,
        )  # fmt: skip


@contextlib.asynccontextmanager
async def http_server(
    root: Path, *args: str, env: dict[str, str] | None = None, tmp: Path | None = None
) -> AsyncIterator[HttpServer]:
    """The console script on a free loopback port, in its own process group (killed after)."""
    port = free_port()
    stderr = (tmp or root) / f"server-{port}.err"
    command = [sys.executable, "-m", "prism.coding_server", "--root", str(root), "--no-sandbox",
               "--http", str(port), *args]  # fmt: skip
    process = _spawn(command, {**BASE_ENV, **(env or {})}, stderr)
    try:
        with anyio.fail_after(scaled(60)):
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                except OSError:
                    assert process.poll() is None, stderr.read_text()
                    await anyio.sleep(0.05)
                    continue
                await stream.aclose()
                break
        yield HttpServer(process, port, stderr)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


async def accept(_: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """A client that approves whatever it is asked (the attacker's own answer)."""
    return types.ElicitResult(action="accept", content={"approve": True})


@contextlib.asynccontextmanager
async def sdk_client(
    url: str, token: str | None = None, elicit: Elicit | None = None
) -> AsyncIterator[ClientSession]:
    """The official SDK client on the session protocol (elicitation needs its back channel)."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    http = create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(scaled(30)))
    async with (
        http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(
            read, write, read_timeout_seconds=scaled(30), elicitation_callback=elicit
        ) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: types.CallToolResult) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
