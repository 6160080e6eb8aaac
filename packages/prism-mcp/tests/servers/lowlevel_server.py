"""Test MCP server built with the SDK's low-level ``Server``: paginated tools, listen variants.

Run: ``python lowlevel_server.py [--page-size N] [--listen normal|flaky|none|reject]`` (stdio).
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

parser = argparse.ArgumentParser()
parser.add_argument("--page-size", type=int, default=2)
parser.add_argument("--listen", default="normal", choices=["normal", "flaky", "none", "reject"])
parser.add_argument("--tools", type=int, default=5)
ARGS = parser.parse_args()

SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}}
TOOLS = [
    Tool(name=f"t{i}", description=f"tool {i}", input_schema=SCHEMA) for i in range(ARGS.tools)
]
TOOLS += [
    Tool(name=n, description=n, input_schema={"type": "object"})
    for n in ("announce", "stats", "pid")
]
BUS = InMemorySubscriptionBus()
INNER = ListenHandler(BUS)
COUNTS = {"list_pages": 0, "listens": 0}


async def list_tools(
    ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
) -> ListToolsResult:
    COUNTS["list_pages"] += 1
    start = int(params.cursor) if params and params.cursor else 0
    end = start + ARGS.page_size
    return ListToolsResult(
        tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None
    )


async def call_tool(
    ctx: ServerRequestContext[Any], params: CallToolRequestParams
) -> CallToolResult:
    if params.name == "announce":
        TOOLS.append(Tool(name=f"new{len(TOOLS)}", input_schema={"type": "object"}))
        await ctx.session.send_tool_list_changed()
        await BUS.publish(ToolsListChanged())
        return CallToolResult(content=[TextContent(text="announced")])
    if params.name == "stats":
        return CallToolResult(content=[TextContent(text="stats")], structured_content=dict(COUNTS))
    if params.name == "pid":
        return CallToolResult(content=[], structured_content={"pid": os.getpid()})
    x = (params.arguments or {}).get("x", 0)
    return CallToolResult(content=[TextContent(text=str(2 * x))])


async def listen(
    ctx: ServerRequestContext[Any], params: SubscriptionsListenRequestParams
) -> SubscriptionsListenResult:
    COUNTS["listens"] += 1
    if ARGS.listen == "reject":
        raise MCPError(METHOD_NOT_FOUND, "Method not found")
    if ARGS.listen == "flaky" and COUNTS["listens"] == 1:
        with anyio.move_on_after(0.3):
            await INNER(ctx, params)
        raise MCPError(-32603, "listen stream dropped")
    return await INNER(ctx, params)


handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
if ARGS.listen != "none":
    handlers["on_subscriptions_listen"] = listen
server = Server("lowlevel-test", version="1", **handlers)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(
            read,
            write,
            server.create_initialization_options(NotificationOptions(tools_changed=True)),
        )


if __name__ == "__main__":
    anyio.run(main)
