"""Bounded Streamable HTTP sessions: a cap that evicts the longest-idle session before it
refuses anyone, an idle timeout, and a bound on the requests one session holds in flight."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from ._options import SessionLimits

__all__ = ["BoundedSessionManager", "SessionEndpoint"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_SESSION_HEADER = MCP_SESSION_ID_HEADER.lower().encode("latin-1")


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager under ``SessionLimits``.

    At the cap, the session whose last request ended longest ago (no request in flight, no
    open stream) is closed to admit the new one; only when every session is busy is the new
    client refused (503). Relies on the SDK's session table and per-transport idle scope
    (``mcp`` 2.3), which the package's tests exercise.
    """

    def __init__(
        self,
        app: Server[Any],
        limits: SessionLimits,
        *,
        security_settings: TransportSecuritySettings | None,
        json_response: bool = False,
        stateless: bool = False,
        event_store: EventStore | None = None,
        retry_interval: int | None = None,
    ) -> None:
        super().__init__(
            app,
            event_store=event_store,
            json_response=json_response,
            stateless=stateless,
            security_settings=security_settings,
            retry_interval=retry_interval,
            session_idle_timeout=limits.idle_seconds,
            max_request_body_size=limits.max_request_bytes,
            max_sessions=limits.max_sessions,
        )
        self.limits = limits
        self._in_flight: dict[str, int] = {}

    def _admit_session(self, requestor: AuthorizationContext | None) -> Any:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._evict_longest_idle()
        return super()._admit_session(requestor)

    def _evict_longest_idle(self) -> None:
        """Close the session idle the longest (its idle deadline is the earliest)."""
        oldest: tuple[float, str] | None = None
        for session_id, transport in self._server_instances.items():
            scope = transport.idle_scope
            if scope is None or scope.cancel_called or self._in_flight.get(session_id):
                continue
            deadline = scope.deadline
            if math.isfinite(deadline) and (oldest is None or deadline < oldest[0]):
                oldest = (deadline, session_id)
        if oldest is None:
            return
        session_id = oldest[1]
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        assert transport.idle_scope is not None
        transport.idle_scope.cancel()  # its server task ends and terminates the transport

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse (429) a request that would put a session over its in-flight bound."""
        session_id = _session_id(scope)
        if session_id is None or session_id not in self._server_instances:
            await super().handle_request(scope, receive, send)
            return
        count = self._in_flight.get(session_id, 0)
        if count >= self.limits.max_requests_per_session:
            await _too_many(send, self.limits.max_requests_per_session)
            return
        self._in_flight[session_id] = count + 1
        try:
            await super().handle_request(scope, receive, send)
        finally:
            left = self._in_flight.get(session_id, 1) - 1
            if left > 0:
                self._in_flight[session_id] = left
            else:
                self._in_flight.pop(session_id, None)


def _session_id(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == _SESSION_HEADER:
            return bytes(value).decode("latin-1")
    return None


async def _too_many(send: Send, limit: int) -> None:
    body = (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"this session already has '
        + str(limit).encode()
        + b' requests in flight (SessionLimits.max_requests_per_session)"}}'
    )
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SessionEndpoint:
    """The ASGI endpoint of the MCP path: every request through the bounded manager."""

    __slots__ = ("manager",)

    def __init__(self, manager: BoundedSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)
