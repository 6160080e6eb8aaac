"""Test MCP server built with the SDK's ``MCPServer``: every content type, faults, list_changed.

Run: ``python sdk_server.py stdio`` or ``python sdk_server.py http PORT [--json] [--stateless]``.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys

import anyio
from mcp.server.mcpserver import Audio, Context, Image, MCPServer
from mcp.types import (
    Annotations,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

mcp = MCPServer("prism-test-server", version="1.0")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text


@mcp.tool()
def image() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@mcp.tool()
def audio() -> Audio:
    """A few bytes of WAV."""
    return Audio(data=b"RIFF\x00\x00\x00\x00WAVE", format="wav")


class Point(BaseModel):
    x: int
    y: int


@mcp.tool()
def structured(x: int, y: int) -> Point:
    """Structured content from a pydantic model."""
    return Point(x=x, y=y)


@mcp.tool()
def mixed() -> CallToolResult:
    """Every content block type in one result, plus structured content."""
    return CallToolResult(
        content=[
            TextContent(text="hello"),
            Image(data=PNG, format="png").to_image_content(),
            Audio(data=b"RIFF....WAVE", format="wav").to_audio_content(),
            ResourceLink(uri="file:///tmp/example.txt", name="example", mime_type="text/plain"),
            EmbeddedResource(
                resource=TextResourceContents(uri="mem://note", text="note", mime_type="text/plain")
            ),
            EmbeddedResource(resource=BlobResourceContents(uri="mem://blob", blob="AAEC")),
        ],
        structured_content={"k": "v"},
    )


@mcp.tool()
def read_file(n_bytes: int) -> CallToolResult:
    """Like the reference filesystem server: the text, and a structured value wrapping it."""
    text = ("line of a file\n" * (n_bytes // 15 + 1))[:n_bytes]
    return CallToolResult(content=[TextContent(text=text)], structured_content={"content": text})


@mcp.tool()
def big_image(n_bytes: int) -> Image:
    """An image of about n_bytes (PNG header and filler)."""
    return Image(data=PNG + b"\0" * max(0, n_bytes - len(PNG)), format="png")


@mcp.tool()
def annotated() -> CallToolResult:
    """Blocks for the user only, for the assistant only, and for both."""
    return CallToolResult(
        content=[
            TextContent(text="for the user", annotations=Annotations(audience=["user"])),
            TextContent(
                text="for the assistant",
                annotations=Annotations(audience=["assistant"], priority=0.9),
            ),
            TextContent(text="for everyone"),
        ]
    )


@mcp.tool()
def fetch_fails() -> CallToolResult:
    """An error result that says what went wrong, once."""
    return CallToolResult(content=[TextContent(text="fetch failed")], is_error=True)


@mcp.tool()
def fail(message: str = "boom") -> str:
    """Raise: an isError result."""
    raise ValueError(message)


@mcp.tool()
def huge(n_bytes: int) -> str:
    """n_bytes of text (MCPServer sends it twice: text and structured)."""
    return "x" * n_bytes


@mcp.tool()
async def sleep_marked(path: str, seconds: float = 3600) -> str:
    """Sleep; write 'cancelled' to path if cancelled."""
    with open(path, "w") as f:
        f.write("started")
    try:
        await anyio.sleep(seconds)
    except BaseException:
        with open(path, "w") as f:
            f.write("cancelled")
        raise
    return "slept"


@mcp.tool()
async def crash(delay: float = 0.2) -> str:
    """Kill the server mid-call."""
    await anyio.sleep(delay)
    os._exit(3)


@mcp.tool()
def pid() -> int:
    """This server's pid."""
    return os.getpid()


@mcp.tool()
def spawn_grandchild() -> int:
    """A long-lived grandchild in our process group."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"]).pid


@mcp.tool()
async def progress(ctx: Context, steps: int = 3) -> str:
    """Report progress."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
    return "done"


_added = 0


@mcp.tool()
async def add_tool(ctx: Context) -> str:
    """Add a tool and announce tools/list_changed on both protocol eras."""
    global _added
    _added += 1
    name = f"dyn_{_added}"

    def dyn() -> str:
        return name

    mcp.add_tool(dyn, name=name, description="added at runtime")
    await ctx.request_context.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return name


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response="--json" in sys.argv,
            stateless_http="--stateless" in sys.argv,
        )
