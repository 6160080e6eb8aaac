"""Test MCP server built with the SDK's low-level ``Server``: paginated tools, listen variants.

Run: ``python lowlevel_server.py [--page-size N] [--listen normal|flaky|none|reject]`` (stdio),
or ``build(...)`` the same server to serve it in-process.
``flaky`` ends the first ``subscriptions/listen`` stream abruptly (the client must listen
again); ``reject`` answers it with ``-32601``; ``none`` does not serve it at all.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.types import (
    METHOD_NOT_FOUND,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    TextContent,
    Tool,
)

SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}}


class _AnnouncingServer(Server[Any]):
    """Declares ``tools.listChanged`` by default (in-process transports use the default)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        if notification_options is None:
            notification_options = NotificationOptions(tools_changed=True)
        return super().create_initialization_options(
            notification_options, experimental_capabilities, extensions
        )


def build(page_size: int = 2, listen_mode: str = "normal", tool_count: int = 5) -> Server[Any]:
    """A fresh server: ``tool_count`` tools listed ``page_size`` at a time, and a listen handler
    that behaves as ``listen_mode`` says (see above)."""
    tools = [
        Tool(name=f"t{i}", description=f"tool {i}", input_schema=SCHEMA) for i in range(tool_count)
    ]
    tools += [
        Tool(name=n, description=n, input_schema={"type": "object"})
        for n in ("announce", "stats", "pid")
    ]
    bus = InMemorySubscriptionBus()
    inner = ListenHandler(bus)
    counts = {"list_pages": 0, "listens": 0}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        counts["list_pages"] += 1
        start = int(params.cursor) if params and params.cursor else 0
        end = start + page_size
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        if params.name == "announce":
            tools.append(Tool(name=f"new{len(tools)}", input_schema={"type": "object"}))
            await ctx.session.send_tool_list_changed()
            await bus.publish(ToolsListChanged())
            return CallToolResult(content=[TextContent(text="announced")])
        if params.name == "stats":
            return CallToolResult(
                content=[TextContent(text="stats")], structured_content=dict(counts)
            )
        if params.name == "pid":
            return CallToolResult(content=[], structured_content={"pid": os.getpid()})
        x = (params.arguments or {}).get("x", 0)
        return CallToolResult(content=[TextContent(text=str(2 * x))])

    async def listen(
        ctx: ServerRequestContext[Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        counts["listens"] += 1
        if listen_mode == "reject":
            raise MCPError(METHOD_NOT_FOUND, "Method not found")
        if listen_mode == "flaky" and counts["listens"] == 1:
            with anyio.move_on_after(0.3):
                await inner(ctx, params)
            raise MCPError(-32603, "listen stream dropped")
        return await inner(ctx, params)

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if listen_mode != "none":
        handlers["on_subscriptions_listen"] = listen
    return _AnnouncingServer("lowlevel-test", version="1", **handlers)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--page-size", type=int, default=2)
    parser.add_argument("--listen", default="normal", choices=["normal", "flaky", "none", "reject"])
    parser.add_argument("--tools", type=int, default=5)
    args = parser.parse_args()
    server = build(args.page_size, args.listen, args.tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
