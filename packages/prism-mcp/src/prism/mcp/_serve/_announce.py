"""``tools/list_changed`` to every live session: handshake-era connections on their standalone
channel, 2026-07-28 ones on their ``subscriptions/listen`` streams.

The SDK builds a ``ServerSession`` per request, so a session kept from one request is gone once
the request ends; the announcer keeps the connection instead, from ``notifications/initialized``
until the connection's teardown.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp.server import NotificationOptions, Server
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged

__all__ = ["AnnouncingServer", "ChangeAnnouncer", "connection_of"]

_SEND_BOUND_SECONDS = 5.0
_TRACKED_METHODS = frozenset({"notifications/initialized", "tools/list", "tools/call"})


class AnnouncingServer(Server[Any]):
    """The SDK server whose default capabilities (the HTTP transports use them) declare
    ``tools.listChanged`` exactly when the notification is sent: not on stateless HTTP, which
    has no channel to send it on."""

    list_changed_over_http = True

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        if notification_options is None:
            notification_options = NotificationOptions(tools_changed=self.list_changed_over_http)
        return super().create_initialization_options(
            notification_options, experimental_capabilities, extensions
        )


def connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection | None:
    # The SDK exposes the connection only on the per-request session; pinned by the tests.
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


class ChangeAnnouncer:
    """Server middleware that tracks live handshake-era connections, and the announcement."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._connections: dict[int, Connection] = {}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method in _TRACKED_METHODS and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = connection_of(ctx)
            if connection is not None and id(connection) not in self._connections:
                self._track(connection)
        return result

    def _track(self, connection: Connection) -> None:
        key = id(connection)
        self._connections[key] = connection
        connection.exit_stack.callback(self._connections.pop, key, None)

    async def announce(self) -> None:
        """One ``list_changed`` to every listener and connection; a stuck one is skipped."""
        await self.bus.publish(ToolsListChanged())
        connections = list(self._connections.items())
        if not connections:
            return
        async with anyio.create_task_group() as group:
            for key, connection in connections:
                group.start_soon(self._send, key, connection)

    async def _send(self, key: int, connection: Connection) -> None:
        with anyio.move_on_after(_SEND_BOUND_SECONDS):
            try:
                await connection.outbound.notify("notifications/tools/list_changed", None)
            except Exception:  # a connection that went away meanwhile
                self._connections.pop(key, None)
