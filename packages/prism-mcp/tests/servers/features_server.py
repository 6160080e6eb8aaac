"""Test MCP server (SDK ``MCPServer``) whose tools ask the client for elicitation, sampling, roots.

Every tool reports what the client answered, or the JSON-RPC error it answered with, as a JSON
object, so tests can check both sides. Run: ``python features_server.py stdio`` or
``python features_server.py http PORT`` (Streamable HTTP on 127.0.0.1).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel

warnings.simplefilter("ignore")  # sampling and roots are deprecated in the 2026 era

mcp = MCPServer("prism-features-server", version="1.0")


class Person(BaseModel):
    name: str
    age: int = 30


def _error(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, MCPError):
        return {"error": exc.code, "message": exc.message}
    return {"error": type(exc).__name__, "message": str(exc)}


@mcp.tool()
async def capabilities(ctx: Context) -> dict[str, Any]:
    """The client capabilities this session declared."""
    caps = ctx.session.client_capabilities
    return {"caps": caps.model_dump(exclude_none=True) if caps else None}


@mcp.tool()
async def ask(question: str, ctx: Context) -> dict[str, Any]:
    """Elicit a Person from the user."""
    try:
        result = await ctx.elicit(question, schema=Person)
    except Exception as exc:
        return _error(exc)
    data = result.data.model_dump() if result.action == "accept" else None
    return {"action": result.action, "data": data}


@mcp.tool()
async def ask_many(count: int, ctx: Context) -> dict[str, Any]:
    """``count`` elicitations at once; reports each outcome."""
    outcomes: list[Any] = [None] * count

    async def one(i: int) -> None:
        try:
            result = await ctx.elicit(f"question {i}", schema=Person)
            outcomes[i] = result.action
        except Exception as exc:
            outcomes[i] = _error(exc)

    async with anyio.create_task_group() as tg:
        for i in range(count):
            tg.start_soon(one, i)
    return {"outcomes": outcomes}


@mcp.tool()
async def sample(prompt: str, ctx: Context) -> dict[str, Any]:
    """Ask the client's model to complete ``prompt``."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    try:
        result = await ctx.session.create_message(
            [message], max_tokens=50, system_prompt="be brief"
        )
    except Exception as exc:
        return _error(exc)
    content = result.content
    text = content.text if isinstance(content, TextContent) else None
    return {"text": text, "model": result.model, "stop": result.stop_reason}


@mcp.tool()
async def roots(ctx: Context) -> dict[str, Any]:
    """The client's roots."""
    try:
        result = await ctx.session.list_roots()
    except Exception as exc:
        return _error(exc)
    return {"roots": [(str(r.uri), r.name) for r in result.roots]}


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
