"""One live MCP session (a stdio process or an HTTP session), owned by a supervisor task.

The SDK's client can die from inside (its HTTP transport raises an ``ExceptionGroup`` out of its
task group and cancels everything in that scope), so the ``Client`` is entered and left by a
dedicated task in the bridge's task group that catches whatever it ends with. Calls come from
other tasks; each registers a ``CallState`` so a dying or closing connection can end it at once.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

import anyio
import anyio.abc
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, MCPError, types
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost

from ._client_features import FeatureCallbacks
from ._errors import clip
from ._http import SSE_SLACK_BYTES, HttpWatch, describe_status, make_http_client
from ._limits import read_cap
from ._memory import open_memory
from ._oauth import build_auth, redact_text
from ._options import McpBridgeOptions
from ._quiet import in_bridge, install
from ._stdio import StdioProcess, open_bounded_stdio
from ._transports import InMemoryTransport, McpTransport, StdioTransport

__all__ = ["CallState", "Connection", "ListChangedMode"]

install()

logger = logging.getLogger("prism.mcp")

ListChangedMode = Literal["notification", "listen", "ttl"]
_LISTEN_MAX_FAILURES = 5
_LISTEN_STABLE_SECONDS = 5.0


class _NoListen(Exception):
    """The server acknowledged a listen stream without tools/list_changed."""


_CLOSE_SLACK_SECONDS = 3.0

try:
    _VERSION = version("prism-mcp")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    _VERSION = "0"


class CallState:
    """One request in flight on a connection; ``lost`` says why the connection ended it."""

    __slots__ = ("lost", "scope")

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.scope = scope
        self.lost: str | None = None


def _describe(exc: BaseException) -> str:
    """A one-line description of whatever ended a connection, unwrapping exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"MCP error {exc.code}: {exc.message}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Connection:
    """A supervised ``mcp.Client``: ``open`` it, call through ``client``, ``close`` it."""

    def __init__(
        self,
        *,
        server_id: str,
        transport: McpTransport,
        options: McpBridgeOptions,
        on_list_changed: Callable[[], None],
    ) -> None:
        self.server_id = server_id
        self.client: Client | None = None
        self.protocol_version: str | None = None
        self.list_changed_mode: ListChangedMode = "ttl"
        self.nonce = secrets.token_hex(8)
        self.dead = False
        self.closing = False
        self.done = anyio.Event()
        self._transport = transport
        self._options = options
        self._on_list_changed = on_list_changed
        self._ready = anyio.Event()
        self._stop = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._connected = False
        self._error: BaseException | None = None
        self._reason: str | None = None
        self._calls: set[CallState] = set()
        self.proc: StdioProcess | None = None
        self.http: HttpWatch | None = None
        if isinstance(transport, StdioTransport):
            self.proc = StdioProcess(self.nonce, self._transport_gone)
        elif not isinstance(transport, InMemoryTransport):
            self.http = HttpWatch()

    # -- lifecycle -----------------------------------------------------------------------

    async def open(self, task_group: anyio.abc.TaskGroup) -> None:
        """Start the supervisor and wait until connected; raise ``ConnectionError`` otherwise."""
        task_group.start_soon(self._supervise)
        await self._ready.wait()
        if not self._connected or self.dead:
            raise ConnectionError(self.reason())

    def begin_close(self, *, fault: bool, reason: str) -> None:
        """Start ending the session without waiting; in-flight calls end with ``reason`` now.

        The supervisor finishes the close in the background, bounded by ``close_grace_seconds``
        plus a fixed slack, so a caller never waits for a faulted session to wind down.
        """
        self.closing = True
        if fault and self.proc is not None:
            self.proc.kill_now = True
        self._fail_calls(reason)
        self._stop.set()
        if not self._connected and self._scope is not None:
            self._scope.cancel()

    async def close(self, *, fault: bool, reason: str) -> None:
        """End the session and wait for it (bounded); in-flight calls end with ``reason``."""
        self.begin_close(fault=fault, reason=reason)
        await self.wait_closed()

    async def wait_closed(self) -> None:
        """Wait (bounded) until the supervisor has finished."""
        with anyio.move_on_after(self._options.close_grace_seconds + 2 * _CLOSE_SLACK_SECONDS):
            await self.done.wait()

    def reason(self) -> str:
        """Why this connection is (or would be) unusable, in one sentence."""
        if self._reason is not None:
            text = self._reason
        elif self._error is not None:
            oauth = getattr(self._transport, "oauth", None)
            text = redact_text(oauth, _describe(self._error))
            if self.proc is not None and self.proc.pid is not None and not self._connected:
                text += f" ({self.proc.describe_exit()})"  # a server that died at start
        elif self.proc is not None and self.dead:
            text = self.proc.describe_exit()
        elif self.session_lost:
            text = "the server no longer knows our session (it restarted or expired it)"
        else:
            text = "the connection was closed"
        if self.http is not None and self.http.auth_status is not None:
            text += describe_status(self.http.auth_status)
        return text

    @property
    def session_lost(self) -> bool:
        """The HTTP server answered 404 (or a 400 saying so) to our session id."""
        return self.http is not None and self.http.session_lost

    @property
    def usable(self) -> bool:
        """Connected, and neither dead, closing, nor without a session."""
        return self._connected and not (self.dead or self.closing or self.session_lost)

    def register(self, state: CallState) -> bool:
        """Track a request in flight; ``False`` if the connection can no longer take it."""
        if self.dead or self.closing:
            return False
        self._calls.add(state)
        return True

    def unregister(self, state: CallState) -> None:
        self._calls.discard(state)

    def _fail_calls(self, reason: str) -> None:
        calls, self._calls = self._calls, set()
        for state in calls:
            state.lost = reason
            state.scope.cancel()

    def _transport_gone(self) -> None:
        """The stdio server closed its stdout: the session cannot answer anything any more."""
        if self.dead or self.closing:
            return
        self.dead = True
        self._fail_calls("the MCP server closed the connection")
        self._stop.set()

    # -- supervisor ----------------------------------------------------------------------

    def _transport_cm(self, stack: contextlib.AsyncExitStack) -> Any:
        opts = self._options
        if isinstance(self._transport, InMemoryTransport):
            return open_memory(self._transport, grace_seconds=opts.close_grace_seconds)
        if isinstance(self._transport, StdioTransport):
            assert self.proc is not None
            return open_bounded_stdio(
                self._transport,
                max_message_bytes=read_cap(opts.max_result_bytes),
                grace_seconds=opts.close_grace_seconds,
                proc=self.proc,
            )
        assert self.http is not None
        http = make_http_client(
            self._transport,
            max_message_bytes=read_cap(opts.max_result_bytes),
            connect_timeout_seconds=opts.connect_timeout_seconds,
            call_timeout_seconds=opts.call_timeout_seconds,
            watch=self.http,
        )
        stack.push_async_callback(http.aclose)
        if self._transport.oauth is not None:
            http.auth = build_auth(self._transport.oauth, self._transport.url)
        return streamable_http_client(
            self._transport.url,
            http_client=http,
            terminate_on_close=True,
            max_sse_event_size=read_cap(opts.max_result_bytes) + 2 * SSE_SLACK_BYTES,
        )

    def _client_cm(self, stack: contextlib.AsyncExitStack) -> AbstractAsyncContextManager[Client]:
        return Client(
            self._transport_cm(stack),
            mode=self._options.protocol_mode,
            message_handler=self._on_message,
            cache=None,
            client_info=types.Implementation(name="prism-mcp", version=_VERSION),
            **self._feature_callbacks(),
        )

    def _feature_callbacks(self) -> dict[str, Any]:
        """The elicitation/sampling/roots callbacks the host enabled (none by default)."""
        features = self._options.client_features
        if features is None:
            return {}
        return FeatureCallbacks(self.server_id, features).client_kwargs()

    async def _supervise(self) -> None:
        in_bridge.set(True)  # this task and the SDK tasks it starts
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self.closing:  # closed (e.g. an aborted connect) before we began
                    scope.cancel()
                scope.deadline = anyio.current_time() + self._options.connect_timeout_seconds
                async with contextlib.AsyncExitStack() as stack:
                    client = await stack.enter_async_context(self._client_cm(stack))
                    scope.deadline = math.inf
                    await self._serve(client)
                    scope.deadline = anyio.current_time() + self._close_bound()
            if scope.cancelled_caught and not self._connected and self._reason is None:
                self._reason = (
                    "closed while connecting"
                    if self.closing
                    else f"no answer within connect_timeout_seconds="
                    f"{self._options.connect_timeout_seconds}"
                )
        except Exception as exc:
            self._error = exc
            logger.debug("MCP server %r connection ended: %r", self.server_id, exc)
        finally:
            self.dead = True
            self._fail_calls(clip(f"the connection to MCP server {self.server_id!r} ended"))
            self._ready.set()
            self.done.set()

    def _close_bound(self) -> float:
        return self._options.close_grace_seconds + _CLOSE_SLACK_SECONDS

    async def _serve(self, client: Client) -> None:
        """Connected: publish the client, keep list_changed flowing, wait for the stop."""
        self.client = client
        self.protocol_version = client.protocol_version
        self._connected = True
        async with anyio.create_task_group() as tg:
            if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
                caps = client.server_capabilities.tools
                if caps is not None and caps.list_changed:
                    tg.start_soon(self._listen_loop, client)
            else:
                self.list_changed_mode = "notification"
            self._ready.set()
            await self._stop.wait()
            tg.cancel_scope.cancel()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._on_list_changed()
        elif isinstance(message, Exception):
            logger.debug("MCP server %r transport: %.300r", self.server_id, message)

    # -- 2026-07-28 list_changed ---------------------------------------------------------

    async def _listen_loop(self, client: Client) -> None:
        """Hold a ``subscriptions/listen`` stream open; listen again after a loss.

        A stream that ends (lost, refused, or closed by the server) within
        ``_LISTEN_STABLE_SECONDS`` of opening counts as a failure; five in a row leave the
        connection on the TTL alone.
        """
        failures = 0
        first = True
        while failures < _LISTEN_MAX_FAILURES:
            opened: list[float] = []
            try:
                await self._listen_stream(client, first, opened)
            except ListenNotSupportedError:
                return
            except MCPError as exc:
                if exc.code in (types.METHOD_NOT_FOUND, types.INVALID_PARAMS):
                    self.list_changed_mode = "ttl"
                    return
                if exc.code == types.CONNECTION_CLOSED:
                    return
            except _NoListen:
                return
            except (SubscriptionLost, TimeoutError, Exception) as exc:
                logger.debug("MCP server %r listen ended: %r", self.server_id, exc)
            lived = anyio.current_time() - opened[0] if opened else 0.0
            failures = 1 if lived >= _LISTEN_STABLE_SECONDS else failures + 1
            first = False
            await anyio.sleep(min(0.05 * 2**failures, 5.0))
        self.list_changed_mode = "ttl"

    async def _listen_stream(self, client: Client, first: bool, opened: list[float]) -> None:
        async with self._listen_once(client) as events:
            if events is None:
                raise _NoListen
            opened.append(anyio.current_time())
            self.list_changed_mode = "listen"
            if not first:
                self._on_list_changed()  # events may have been missed meanwhile
            async for _event in events:
                self._on_list_changed()

    @contextlib.asynccontextmanager
    async def _listen_once(self, client: Client) -> AsyncIterator[Any]:
        """Open one listen stream (its ack bounded by the connect timeout), or ``None``."""
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + self._options.connect_timeout_seconds
            async with client.listen(tools_list_changed=True) as sub:
                scope.deadline = math.inf
                honored = sub.honored.tools_list_changed
                if not honored:
                    self.list_changed_mode = "ttl"
                yield sub if honored else None
        if scope.cancelled_caught:
            raise TimeoutError("subscriptions/listen was not acknowledged in time")
