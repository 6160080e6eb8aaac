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
