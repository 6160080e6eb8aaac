"""``InMemoryTransport``: an MCP server in this process, reached over the SDK's memory streams."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio

__all__ = ["InMemoryTransport", "open_memory"]


def _lowlevel(server: object) -> tuple[Any, Any]:
    """The SDK low-level server inside ``server`` and the initialization options it runs with."""
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from .server import McpToolServer

    if isinstance(server, McpToolServer):
        return server.lowlevel, server.initialization_options()
    if isinstance(server, MCPServer):
        inner: Server[Any] = server._lowlevel_server  # the SDK has no public accessor yet
        return inner, inner.create_initialization_options()
    if isinstance(server, Server):
        return server, server.create_initialization_options()
    raise TypeError(
        "InMemoryTransport.server must be a prism.mcp.server.McpToolServer, an mcp MCPServer or "
        f"an mcp low-level Server, got {type(server).__name__}"
    )


@dataclass(frozen=True, slots=True)
class InMemoryTransport:
    """Serve ``server`` in this process, over the SDK's memory streams: for tests and in-process
    servers.

    ``server`` is a Prism ``McpToolServer``, an SDK ``MCPServer`` or a low-level ``Server``. Each
    connection runs ``server`` (the same JSON-RPC messages as stdio) in the bridge's task group;
    there is no process and no byte stream, so the wire byte bounds of stdio and HTTP do not apply.
    """

    server: object

    def __post_init__(self) -> None:
        _lowlevel(self.server)  # fail now, naming the type, not at connect

    def __repr__(self) -> str:
        return f"InMemoryTransport(server={type(self.server).__name__})"


@contextlib.asynccontextmanager
async def open_memory(
    transport: InMemoryTransport, *, grace_seconds: float
) -> AsyncIterator[tuple[Any, Any]]:
    """Run the server on one pair of memory streams; yield the client's (read, write) ends.

    On exit the streams are closed (the server sees EOF and ends its handlers); a server that
    has not finished within ``grace_seconds`` is cancelled.
    """
    from mcp.shared.memory import create_client_server_memory_streams

    lowlevel, init = _lowlevel(transport.server)
    async with create_client_server_memory_streams() as (client, server_side):
        done = anyio.Event()

        async def serve() -> None:
            try:
                await lowlevel.run(server_side[0], server_side[1], init)
            finally:
                done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            try:
                yield client
            finally:
                await client[1].aclose()
                await server_side[1].aclose()
                with anyio.move_on_after(grace_seconds, shield=True):
                    await done.wait()
                group.cancel_scope.cancel()
