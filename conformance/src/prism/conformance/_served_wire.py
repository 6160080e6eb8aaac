"""The stdio wire of the served subject: a relay process and an in-process MCP server behind it.

Prism's MCP client speaks stdio to a tiny relay process (``relay_command``) that copies bytes
between its stdin/stdout and a Unix socket this process listens on, where ``serve_connection``
runs the served registry's MCP server. The client and server therefore talk real
newline-delimited JSON-RPC through a real process, while the tools, and every callable the rows
give them (policies, approvers, recording shells), stay in this process.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

__all__ = ["MAX_LINE_BYTES", "relay_command", "serve_connection"]

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest JSON-RPC line the served side reads (results are bounded far below it)."""

_RELAY = """
import os, socket, sys, threading
peer = socket.socket(socket.AF_UNIX)
peer.connect(sys.argv[1])
def upstream():
    while data := os.read(0, 65536):
        peer.sendall(data)
    peer.shutdown(socket.SHUT_WR)
threading.Thread(target=upstream, daemon=True).start()
out = sys.stdout.buffer
while data := peer.recv(65536):
    out.write(data)
    out.flush()
"""


def relay_command(socket_path: str) -> tuple[str, tuple[str, ...]]:
    """(command, args) of the relay process that connects its stdio to ``socket_path``."""
    return sys.executable, ("-I", "-S", "-c", _RELAY, socket_path)


async def serve_connection(server: Any, stream: anyio.abc.ByteStream) -> None:
    """Run ``server`` (an ``McpToolServer``) on one accepted connection until it closes."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    inbound_send, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outbound, outbound_receive = anyio.create_memory_object_stream[SessionMessage](0)
    lines = BufferedByteReceiveStream(stream)

    async def read_lines() -> None:
        async with inbound_send:
            while True:
                try:
                    line = await lines.receive_until(b"\n", MAX_LINE_BYTES)
                except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
                    return
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:  # the SDK answers a bad line with a parse error
                    await inbound_send.send(exc)
                    continue
                await inbound_send.send(SessionMessage(message))

    async def write_lines() -> None:
        async with outbound_receive:
            async for item in outbound_receive:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    await stream.send(text.encode() + b"\n")
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return

    async with stream, anyio.create_task_group() as group:
        group.start_soon(read_lines)
        group.start_soon(write_lines)
        await server.lowlevel.run(inbound, outbound, server.initialization_options())
        group.cancel_scope.cancel()
