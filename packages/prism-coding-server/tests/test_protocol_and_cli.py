"""The coding server to the letter of the spec and as an operator sees it: an unknown tool is a
JSON-RPC error (SDK client over stdio), ``--version``, and the HTTP "listening on" line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters, types

from prism.core.testing import scaled

pytestmark = pytest.mark.anyio

BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_unknown_tool_is_invalid_params(tmp_path: Path, mode: str) -> None:
    args = ["-m", "prism.coding_server", "--root", str(tmp_path), "--no-sandbox", "--read-only"]
    params = StdioServerParameters(command=sys.executable, args=args, env=BASE_ENV)
    with anyio.fail_after(scaled(60)):
        async with Client(params, mode=mode, read_timeout_seconds=scaled(30)) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("rm_everything", {})
    assert caught.value.code == types.INVALID_PARAMS
    assert "rm_everything" in caught.value.message


def test_version_prints_the_package_version() -> None:
    import subprocess
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "prism.coding_server", "--version"],
        capture_output=True, text=True, timeout=scaled(60), env=BASE_ENV, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"prism-coding-server {version('prism-coding-server')}"


async def test_http_prints_where_it_listens_once_bound(tmp_path: Path) -> None:
    import re
    import signal
    import subprocess

    process = await anyio.open_process(
        [sys.executable, "-m", "prism.coding_server", "--root", str(tmp_path), "--no-sandbox",
         "--read-only", "--http", "0"],
        env=BASE_ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    seen = b""
    try:
        with anyio.fail_after(scaled(60)):
            assert process.stderr is not None
            while (
                found := re.search(rb"listening on (http://127\.0\.0\.1:(\d+)/mcp)\n", seen)
            ) is None:
                seen += await process.stderr.receive()
            stream = await anyio.connect_tcp("127.0.0.1", int(found.group(2)))
            await stream.aclose()
    finally:
        with anyio.CancelScope(shield=True):
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            await process.aclose()
    assert found.group(2) != b"0"


async def test_a_client_sees_why_the_server_would_not_start(tmp_path: Path) -> None:
    from prism.mcp import McpConnectError, StdioTransport, connect_mcp_tools

    missing = tmp_path / "missing"
    args = ("-m", "prism.coding_server", "--root", str(missing), "--no-sandbox")
    transport = StdioTransport(sys.executable, args=args, env=BASE_ENV)
    with anyio.fail_after(scaled(60)), pytest.raises(McpConnectError) as caught:
        async with connect_mcp_tools(server_id="coding", transport=transport):
            pass
    message = str(caught.value)
    assert "exited with code 2" in message, message
    assert "roots must be existing directories" in message and str(missing) in message, message
