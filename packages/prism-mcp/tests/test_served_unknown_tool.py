"""An unknown tool is a JSON-RPC error -32602 (Invalid params), as the spec says, not an
``isError`` result: checked with the SDK's own client in memory and over HTTP, on both eras."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError, types

from prism.core import ToolGates
from prism.core.testing import scaled

from .conftest import SERVERS, Kit, server_module

pytestmark = pytest.mark.anyio

SERVED = str(SERVERS / "prism_served.py")


async def _unknown_and_known(target: object, mode: str) -> tuple[MCPError, types.CallToolResult]:
    async with Client(target, mode=mode, read_timeout_seconds=scaled(30)) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
        known = await client.call_tool("echo", {"text": "still here"})
    return caught.value, known


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_unknown_tool_is_invalid_params_in_memory(mode: str, tmp_path: Path) -> None:
    server = server_module("prism_served").build(tmp_path)
    with anyio.fail_after(scaled(60)):
        error, known = await _unknown_and_known(server.lowlevel, mode)
    assert error.code == types.INVALID_PARAMS
    assert "no_such_tool" in error.message
    assert known.is_error is False


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_unknown_tool_is_invalid_params_over_http(kit: Kit, mode: str) -> None:
    with anyio.fail_after(scaled(60)):
        async with kit.http_script(SERVED) as url:
            error, known = await _unknown_and_known(url, mode)
    assert error.code == types.INVALID_PARAMS
    assert "no_such_tool" in error.message
    assert known.is_error is False


async def test_a_tool_the_filter_hides_is_unknown_too() -> None:
    from prism.core import ToolDefinition, ToolFilter, ToolPipeline, ToolRegistry
    from prism.mcp.server import McpToolServer

    async def run(args: object, ctx: object) -> str:
        return "ran"

    tools = [ToolDefinition(name=n, execute=run) for n in ("shown", "hidden")]
    pipeline = ToolPipeline(
        registry=ToolRegistry(tools), gates=ToolGates(tool_filter=ToolFilter(deny=["hidden"]))
    )
    server = McpToolServer(pipeline)
    with anyio.fail_after(scaled(30)):
        async with Client(server.lowlevel, mode="legacy") as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as hidden:
                await client.call_tool("hidden", {})
            with pytest.raises(MCPError) as missing:
                await client.call_tool("missing", {})
    assert listed == ["shown"]
    assert hidden.value.code == missing.value.code == types.INVALID_PARAMS
    assert hidden.value.message == "Unknown tool: hidden"  # same answer as a missing tool
