"""Bounded Streamable HTTP sessions: a cap that evicts the longest-idle session (sharing
room fairly between credentials) before it refuses anyone, an idle timeout, a bound on the
requests one session holds in flight, and checks on the request that opens a session."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from ._opening import OpeningBudget, read_opening, replay
from ._options import SessionLimits

__all__ = ["BoundedSessionManager", "SessionEndpoint"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_SESSION_HEADER = MCP_SESSION_ID_HEADER.lower().encode("latin-1")
_VERSION_HEADER = b"mcp-protocol-version"


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager under ``SessionLimits``.

    Only a POSTed ``initialize`` opens a session; anything else without a session id is
    refused before a session exists, and opening bodies share one byte budget. At the cap,
    a client whose credential holds fewer than its share takes the slot of a credential
    holding more (even a busy one); otherwise the session idle the longest is closed: an
    idle one first, then one whose requests (an open GET stream, a slow body) saw no
    activity for ``idle_seconds``; only when every session is active is the client refused
    (503). Relies on the SDK's session table and per-transport idle scope
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
        self._last_active: dict[str, float] = {}
        self._opening = OpeningBudget(limits.max_sessions * limits.max_request_bytes)

    def _admit_session(self, requestor: AuthorizationContext | None) -> Any:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            hogs = self._over_share(requestor)
            if not (hogs and self._evict_one(hogs, busy_too=True)):
                self._evict_one(list(self._server_instances))
        return super()._admit_session(requestor)

    def _over_share(self, requestor: AuthorizationContext | None) -> list[str]:
        """The sessions of credentials over their share, when ``requestor`` is under its own."""
        if requestor is None:
            return []
        held: dict[tuple[object, ...], list[str]] = {}
        for session_id, owner in self._session_owners.items():
            held.setdefault(_principal(owner), []).append(session_id)
        share = self.limits.share
        if len(held.get(_principal(requestor), ())) >= share:
            return []
        return [s for owner, ids in held.items() if len(ids) > share for s in ids]

    def _evict_one(self, among: Iterable[str], *, busy_too: bool = False) -> bool:
        """Close the longest-idle session of ``among``: an idle one first (earliest idle
        deadline), then one whose requests saw no activity for ``idle_seconds``, then (with
        ``busy_too``) the one least recently active."""
        now = anyio.current_time()
        best: tuple[int, float, str] | None = None
        for session_id in among:
            transport = self._server_instances.get(session_id)
            scope = None if transport is None else transport.idle_scope
            if scope is None or scope.cancel_called:
                continue
            if self._in_flight.get(session_id):
                last = self._last_active.get(session_id, now)
                stale = now - last >= self.limits.idle_seconds
                if not (stale or busy_too):
                    continue
                rank = (1 if stale else 2, last, session_id)
            elif math.isfinite(scope.deadline):
                rank = (0, scope.deadline, session_id)
            else:
                continue
            if best is None or rank < best:
                best = rank
        if best is None:
            return False
        transport = self._server_instances.pop(best[2])
        self._session_owners.pop(best[2], None)
        assert transport is not None and transport.idle_scope is not None
        transport.idle_scope.cancel()  # its server task ends and terminates the transport
        return True

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check a session-opening request first; refuse (429) a request that would put a
        session over its in-flight bound."""
        session_id = _session_id(scope)
        if session_id is None and self._opens_a_session(scope):
            await self._open(scope, receive, send)
            return
        if session_id is None or session_id not in self._server_instances:
            await super().handle_request(scope, receive, send)
            return
        count = self._in_flight.get(session_id, 0)
        if count >= self.limits.max_requests_per_session:
            await _too_many(send, self.limits.max_requests_per_session)
            return
        self._in_flight[session_id] = count + 1
        self._last_active[session_id] = anyio.current_time()
        try:
            await super().handle_request(scope, receive, send)
        finally:
            self._settle(session_id)

    def _settle(self, session_id: str) -> None:
        left = self._in_flight.get(session_id, 1) - 1
        if left > 0:
            self._in_flight[session_id] = left
            self._last_active[session_id] = anyio.current_time()
        else:
            self._in_flight.pop(session_id, None)
            self._last_active.pop(session_id, None)

    def _opens_a_session(self, scope: Scope) -> bool:
        """Whether the SDK would route this request (no session id) to session opening."""
        if self.stateless:
            return False
        for key, value in scope.get("headers", ()):
            if key.lower() == _VERSION_HEADER:
                return bytes(value).decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS
        return True

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limits.max_request_bytes
        opening = await read_opening(scope, receive, send, budget=self._opening, max_bytes=limit)
        if opening is None:
            return
        body, reserved = opening
        try:
            await super().handle_request(scope, replay(body, receive), send)
        finally:
            self._opening.give(reserved)


def _principal(owner: AuthorizationContext) -> tuple[object, ...]:
    return (owner["client_id"], owner.get("issuer"), owner.get("subject"))


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
