"""Real MCP servers for the prism-mcp tests, and a check that none of them outlives its test.

Every server a test starts carries ``PRISM_MCP_TEST_TOKEN=<uuid>`` in its environment (stdio
servers get it through ``StdioTransport(env=...)``, HTTP servers through ``Popen(env=...)``), and
so do its children. After each test no live process may carry that token.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from prism.conformance._process_probes import process_group as group_members
from prism.core import AbortController, AbortSignal, ToolExecutionContext, ToolResult
from prism.core.testing import scaled
from prism.mcp import InMemoryTransport, McpToolBridge, StdioTransport

SERVERS = Path(__file__).parent / "servers"
TOKEN_VAR = "PRISM_MCP_TEST_TOKEN"


def load_server(name: str) -> ModuleType:
    """A fresh import of ``servers/<name>.py`` (its module-level server and state are new), to
    serve in-process with ``InMemoryTransport``."""
    spec = importlib.util.spec_from_file_location(f"prism_mcp_test_{name}", SERVERS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


server_module = functools.cache(load_server)
"""``load_server`` once per test session, for servers built by a function (``build()``)."""


def processes_with(token: str) -> list[int]:
    """Live processes whose environment carries ``TOKEN_VAR=token``."""
    needle = f"{TOKEN_VAR}={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z" and needle in env.split(b"\0"):
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PeakRss:
    """Peak RSS growth of this process since ``reset()`` (Linux ``VmHWM``)."""

    @staticmethod
    def _read(field: str) -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
        raise AssertionError(field)

    def reset(self) -> None:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        self.base = self._read("VmRSS:")

    def growth(self) -> int:
        return self._read("VmHWM:") - self.base


class Kit:
    """Transports to the test servers (all tagged with the test's token) and call helpers."""

    group_members = staticmethod(group_members)
    alive = staticmethod(alive)
    processes_with = staticmethod(processes_with)

    def __init__(self, token: str) -> None:
        self.token = token
        self.env = {TOKEN_VAR: token}

    def hostile(self, mode: str = "ok", *extra: str, env: dict[str, str] | None = None) -> Any:
        args = ("-m", "prism.conformance._hostile_mcp", "--mode", mode, *extra)
        return StdioTransport(sys.executable, args=args, env={**self.env, **(env or {})})

    @staticmethod
    def sdk_memory() -> InMemoryTransport:
        """A fresh ``sdk_server.py`` server (its own counters and tools) in this process."""
        return InMemoryTransport(load_server("sdk_server").mcp)

    @staticmethod
    def lowlevel_memory(page_size: int = 2, listen: str = "normal") -> InMemoryTransport:
        """A fresh ``lowlevel_server.py`` server in this process (``lowlevel`` runs it)."""
        return InMemoryTransport(server_module("lowlevel_server").build(page_size, listen))

    def sdk_stdio(self) -> StdioTransport:
        return StdioTransport(
            sys.executable, args=(str(SERVERS / "sdk_server.py"), "stdio"), env=self.env
        )

    def lowlevel(self, *extra: str) -> StdioTransport:
        return StdioTransport(
            sys.executable, args=(str(SERVERS / "lowlevel_server.py"), *extra), env=self.env
        )

    def http_server(
        self, *extra: str, port: int | None = None
    ) -> contextlib.AbstractAsyncContextManager[str]:
        """An ``sdk_server.py`` on 127.0.0.1 (``port`` or a free one); its group is killed after."""
        return self.http_script(str(SERVERS / "sdk_server.py"), *extra, port=port)

    @contextlib.asynccontextmanager
    async def http_script(
        self,
        script: str,
        *extra: str,
        env: dict[str, str] | None = None,
        port: int | None = None,
    ) -> AsyncIterator[str]:
        """``python script http PORT *extra`` (``port`` or a free one); group killed after."""
        port = port if port is not None else free_port()
        proc = await anyio.open_process(
            [sys.executable, script, "http", str(port), *extra],
            env={**os.environ, **self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            with anyio.fail_after(scaled(30)):
                while True:
                    try:
                        stream = await anyio.connect_tcp("127.0.0.1", port)
                    except OSError:
                        if proc.returncode is not None:
                            raise RuntimeError("the HTTP test server exited") from None
                        await anyio.sleep(0.05)
                    else:
                        await stream.aclose()
                        break
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()

    @staticmethod
    def context(
        signal: AbortSignal | None = None, call_id: str = "call-1", **kw: Any
    ) -> ToolExecutionContext:
        return ToolExecutionContext(
            session_id="s",
            run_id="r",
            tool_call_id=call_id,
            signal=signal if signal is not None else AbortController().signal,
            **kw,
        )

    @staticmethod
    def tool(bridge: McpToolBridge, remote: str) -> Any:
        name = bridge.name_prefix + remote
        for tool in bridge.tools:
            if tool.name == name:
                return tool
        raise AssertionError(f"no tool {name}: {[t.name for t in bridge.tools]}")

    async def call(
        self, bridge: McpToolBridge, remote: str, arguments: dict[str, Any] | None = None, **kw: Any
    ) -> ToolResult:
        result = await self.tool(bridge, remote).execute(arguments or {}, self.context(**kw))
        assert isinstance(result, ToolResult)
        return result

    @staticmethod
    async def group_gone(pgid: int, seconds: float = 3.0) -> bool:
        with anyio.move_on_after(seconds):
            while group_members(pgid):
                await anyio.sleep(0.02)
        return not group_members(pgid)

    @staticmethod
    async def until(predicate: Any, seconds: float = 5.0) -> bool:
        with anyio.move_on_after(seconds):
            while not predicate():
                await anyio.sleep(0.02)
        return bool(predicate())


@pytest.fixture
def kit() -> Iterator[Kit]:
    """Test servers tagged with a fresh token; fails the test if any of them outlives it."""
    token = uuid.uuid4().hex
    yield Kit(token)
    deadline = time.monotonic() + 3.0
    while (left := processes_with(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"test server processes outlived the test: {left}"


@pytest.fixture
def peak_rss() -> PeakRss:
    if not os.path.exists("/proc/self/clear_refs"):
        pytest.skip("needs Linux /proc/self/clear_refs")
    return PeakRss()
