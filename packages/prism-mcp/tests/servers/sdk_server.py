"""Test MCP server built with the SDK's ``MCPServer``: every content type, faults, list_changed.

Run: ``python sdk_server.py stdio`` or ``python sdk_server.py http PORT [--json] [--stateless]``.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from typing import Any

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
def rate_limited() -> CallToolResult:
    """An error result whose ``_meta`` says why and when to retry."""
    return CallToolResult(
        content=[TextContent(text="slow down")],
        is_error=True,
        _meta={"com.example/error": {"code": "rate_limited", "retryAfterSeconds": 2}},
    )


_calls = 0


@mcp.tool()
def count() -> int:
    """How many times this tool ran in this server process."""
    global _calls
    _calls += 1
    return _calls


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
async def freeze(seconds: float = 30) -> str:
    """Block the server's event loop: nothing (cancel, DELETE) is answered meanwhile."""
    time.sleep(seconds)
    return "woke"


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


def _unknown_session_is_400(app: Any) -> Any:
    """Answer an unknown session id the way the TypeScript SDK does: 400, not 404."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        rewriting = False

        async def send_400_for_404(message: Any) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start" and message["status"] == 404:
                rewriting = True
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
                headers.append((b"content-length", str(len(_BAD_SESSION)).encode()))
                message = {**message, "status": 400, "headers": headers}
            elif message["type"] == "http.response.body" and rewriting:
                message = {**message, "body": _BAD_SESSION, "more_body": False}
            await send(message)

        await app(scope, receive, send_400_for_404)

    return wrapped


_BAD_SESSION = (
    b'{"jsonrpc":"2.0","error":{"code":-32000,'
    b'"message":"Bad Request: No valid session ID provided"},"id":null}'
)


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _add_deep_tool() -> None:
    """With ``--deep N``: a tool ``deep`` whose input schema nests N levels."""
    if "--deep" not in sys.argv:
        return

    def deep() -> str:
        return "deep"

    mcp.add_tool(deep, name="deep")
    mcp._tool_manager._tools["deep"].parameters = _nested(
        int(sys.argv[sys.argv.index("--deep") + 1])
    )


def _require_token(app: Any, token: str) -> Any:
    """401 without a bearer token, 403 with the wrong one (no body: a bare gateway refusal)."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode()
        status = 0 if given == f"Bearer {token}" else 403 if given else 401
        if scope["type"] != "http" or not status:
            await app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return wrapped


def _serve_http(port: int) -> None:
    wrap = "--unknown-session-400" in sys.argv or "--auth" in sys.argv
    if not wrap:
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=port,
            json_response="--json" in sys.argv,
            stateless_http="--stateless" in sys.argv,
        )
        return
    import uvicorn

    app = mcp.streamable_http_app(json_response="--json" in sys.argv)
    if "--unknown-session-400" in sys.argv:
        app = _unknown_session_is_400(app)
    if "--auth" in sys.argv:
        app = _require_token(app, sys.argv[sys.argv.index("--auth") + 1])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    _add_deep_tool()
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        _serve_http(int(sys.argv[2]))
