"""``InMemoryTransport``: the bridge reaches a server object in this process, no subprocess.

Prism's ``McpToolServer``, the SDK's ``MCPServer`` and its low-level ``Server`` all serve over it,
on asyncio and trio; closing the bridge ends the server's handlers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

from prism.core.testing import scaled
from prism.mcp import InMemoryTransport, McpBridgeOptions, McpToolBridge, connect_mcp_tools

from .conftest import Kit, server_module

pytestmark = pytest.mark.anyio


async def test_a_served_prism_registry_is_listed_called_and_announces_changes(
    kit: Kit, tmp_path: Path
) -> None:
    changed = anyio.Event()

    def on_changed(bridge: McpToolBridge) -> None:
        changed.set()

    server = server_module("prism_served").build(tmp_path)
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="inproc",
            transport=InMemoryTransport(server),
            options=McpBridgeOptions(name_prefix="", on_tools_changed=on_changed),
        ) as bridge:
            assert "echo" in [t.name for t in bridge.tools]
            result = await kit.call(bridge, "echo", {"text": "hi"})
            assert [getattr(c, "text", None) for c in result.content] == ["hi"]
            await kit.call(bridge, "add_tool", {"name": "late"})
            await changed.wait()
            assert "late" in [t.name for t in await bridge.refresh()]


async def test_an_sdk_mcpserver_serves_in_memory(kit: Kit) -> None:
    app = MCPServer("inproc")

    @app.tool()
    def add(a: int, b: int) -> int:
        return a + b

    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="sdk",
            transport=InMemoryTransport(app),
            options=McpBridgeOptions(name_prefix=""),
        ) as bridge:
            result = await kit.call(bridge, "add", {"a": 2, "b": 3})
    assert result.error is None
    assert result.value == {"result": 5}


async def test_closing_the_bridge_ends_a_lowlevel_servers_handler(kit: Kit) -> None:
    started, ended = anyio.Event(), anyio.Event()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="hang", input_schema={"type": "object"})])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            ended.set()
        return CallToolResult(content=[TextContent(text="never")])  # pragma: no cover

    server: Server[Any] = Server("lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)
    with anyio.fail_after(scaled(30)):
        async with anyio.create_task_group() as group:
            async with connect_mcp_tools(
                server_id="low",
                transport=InMemoryTransport(server),
                options=McpBridgeOptions(name_prefix=""),
            ) as bridge:
                group.start_soon(kit.call, bridge, "hang")
                await started.wait()
            await ended.wait()
            group.cancel_scope.cancel()


def test_the_transport_names_a_wrong_server_type() -> None:
    with pytest.raises(TypeError, match=r"InMemoryTransport\.server must be .* got str"):
        InMemoryTransport("python server.py")
    assert repr(InMemoryTransport(MCPServer("x"))) == "InMemoryTransport(server=MCPServer)"
