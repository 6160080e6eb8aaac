"""``McpToolBridge``: the tools of one MCP server, kept fresh, callable, and bounded."""

from __future__ import annotations

import inspect
import logging
import math
import time
from typing import Any, NoReturn

import anyio
import anyio.abc

from mcp import MCPError, types
from prism.core import JsonObject, ToolDefinition, ToolExecutionContext, ToolHandler, ToolResult

from ._calls import call_remote_tool
from ._connection import CallState, Connection, ListChangedMode
from ._content import map_call_result
from ._errors import (
    MCP_CONNECTION_LOST,
    MCP_RESULT_TOO_LARGE,
    MCP_TIMEOUT,
    McpBridgeError,
    McpConnectError,
    McpToolListError,
    clip,
)
from ._http import CallMarks, current_call, describe_status
from ._limits import cap_note, read_cap
from ._listing import build_definitions
from ._options import McpBridgeOptions, ToolsChangedCallback
from ._stdio import INJECTED_TOO_LARGE
from ._transports import McpTransport

__all__ = ["McpToolBridge"]


class _ListFault(Exception):
    """A ``tools/list`` page failed; ``fault`` (if any) is applied once the listing has ended."""

    def __init__(self, fault: str | None, message: str) -> None:
        super().__init__(message)
        self.fault = fault
        self.message = message


class _SessionLost(_ListFault):
    """The server no longer knew our session: reconnect and list once more."""


logger = logging.getLogger("prism.mcp")

_FAULTS = (MCP_TIMEOUT, MCP_RESULT_TOO_LARGE, MCP_CONNECTION_LOST)
_EXIT_REASON_WAIT_SECONDS = 0.5


class McpToolBridge:
    """The tools of one MCP server as Prism ``ToolDefinition``s. Made by ``connect_mcp_tools``.

    ``tools`` is an immutable snapshot; ``refresh()`` re-lists only when ``stale`` (a
    ``list_changed`` notification arrived, or ``list_cache_ttl_seconds`` passed).
    """

    def __init__(
        self,
        *,
        server_id: str,
        transport: McpTransport,
        options: McpBridgeOptions,
        task_group: anyio.abc.TaskGroup,
    ) -> None:
        self.server_id = server_id
        self.options = options
        self.name_prefix = (
            options.name_prefix if options.name_prefix is not None else f"mcp:{server_id}:"
        )
        self.on_tools_changed: ToolsChangedCallback | None = options.on_tools_changed
        self._transport = transport
        self._tg = task_group
        self._tools: tuple[ToolDefinition, ...] = ()
        self._listed_at = -math.inf
        self._invalidated = True
        self._generation = 0
        self._lists = 0
        self._conn: Connection | None = None
        self._retired: set[Connection] = set()
        self._conn_lock = anyio.Lock()
        self._refresh_lock = anyio.Lock()
        self._closed = False
        self._closed_after_fault: str | None = None

    # -- public surface ------------------------------------------------------------------

    @property
    def tools(self) -> tuple[ToolDefinition, ...]:
        """The tools of the last successful listing (an immutable tuple)."""
        return self._tools

    @property
    def stale(self) -> bool:
        """True when the server announced a change or the listing is older than the TTL."""
        age = time.monotonic() - self._listed_at
        return self._invalidated or age >= self.options.list_cache_ttl_seconds

    @property
    def closed(self) -> bool:
        """True once ``close()`` ran; calls then return ``mcp_connection_lost``."""
        return self._closed

    @property
    def list_requests(self) -> int:
        """How many ``tools/list`` walks this bridge made (each may span several pages)."""
        return self._lists

    @property
    def protocol_version(self) -> str | None:
        """The protocol version of the current connection (``None`` when disconnected)."""
        conn = self._conn
        return conn.protocol_version if conn is not None and not conn.dead else None

    @property
    def list_changed_mode(self) -> ListChangedMode:
        """How change announcements reach us: legacy notifications, a listen stream, or TTL only."""
        conn = self._conn
        return conn.list_changed_mode if conn is not None else "ttl"

    @property
    def server_pid(self) -> int | None:
        """The pid (and process group) of the current stdio server, if any."""
        conn = self._conn
        return conn.proc.pid if conn is not None and conn.proc is not None else None

    async def refresh(self, *, force: bool = False) -> tuple[ToolDefinition, ...]:
        """Re-list the tools if ``stale`` (or always, with ``force=True``).

        Within the TTL and not stale, and without ``force``, no request is sent. A failed
        refresh (``McpToolNameCollisionError``, ``McpToolListError``, ``McpConnectError``)
        raises and leaves ``tools`` as they were.
        """
        if self._closed:
            raise McpBridgeError(f"MCP bridge {self.server_id!r}: closed")
        async with self._refresh_lock:
            if not (force or self.stale):
                return self._tools
            generation = self._generation
            listed = await self._list_with_retry()
            self._tools = build_definitions(
                listed,
                server_id=self.server_id,
                prefix=self.name_prefix,
                options=self.options,
                make_handler=self._handler,
            )
            self._listed_at = time.monotonic()
            if self._generation == generation:
                self._invalidated = False
            return self._tools

    async def close(self) -> None:
        """Close the connection (bounded); calls in flight end with ``mcp_connection_lost``.

        Connections retired after a fault (closing in the background) are waited for too.
        """
        self._closed = True
        conn = self._conn
        if conn is not None and not conn.done.is_set():
            conn.begin_close(fault=False, reason="the MCP bridge was closed during the call")
        waiting = [c for c in (*self._retired, conn) if c is not None and not c.done.is_set()]
        if waiting:
            async with anyio.create_task_group() as tg:
                for item in waiting:
                    tg.start_soon(item.wait_closed)
        self._retired.clear()

    def _retire(self, conn: Connection, reason: str) -> None:
        """Close ``conn`` in the background (bounded); ``close()`` still waits for it."""
        self._retired = {c for c in self._retired if not c.done.is_set()}
        if not conn.done.is_set():
            conn.begin_close(fault=True, reason=reason)
            self._retired.add(conn)

    # -- connection ----------------------------------------------------------------------

    async def connection(self) -> Connection:
        """The live connection, (re)opened lazily; ``McpConnectError`` if there cannot be one."""
        conn = self._conn
        if conn is not None and conn.usable:
            return conn
        async with self._conn_lock:
            if self._closed:
                raise McpConnectError(f"MCP bridge {self.server_id!r}: closed")
            if self._closed_after_fault is not None:
                raise McpConnectError(
                    f"MCP server {self.server_id!r}: the connection was closed after a fault "
                    f"({self._closed_after_fault}) "
                    "and on_call_fault='close' keeps it closed"
                )
            conn = self._conn
            if conn is not None and conn.usable:
                return conn
            reconnect = conn is not None
            if conn is not None:
                self._retire(conn, "the connection was replaced")
            conn = Connection(
                server_id=self.server_id,
                transport=self._transport,
                options=self.options,
                on_list_changed=self._list_changed,
            )
            self._conn = conn
            try:
                await conn.open(self._tg)
            except ConnectionError as exc:
                raise McpConnectError(
                    clip(f"could not connect to MCP server {self.server_id!r}: {exc}")
                ) from None
            if reconnect:
                self._invalidated = True  # the server may have changed while we were away
            return conn

    async def after_fault(self, fault: str, conn: Connection | None, message: str) -> str:
        """Apply ``on_call_fault`` after a failed call; returns the message to report.

        The faulted connection is closed in the background: the caller never waits for it.
        """
        if fault not in _FAULTS or conn is None:
            return message
        if fault == MCP_CONNECTION_LOST and conn.dead and not conn.closing:
            with anyio.move_on_after(_EXIT_REASON_WAIT_SECONDS):
                await conn.done.wait()
            message = f"{message} ({conn.reason()})"
        policy = self.options.on_call_fault
        if policy == "keep" and not (conn.dead or conn.session_lost):
            return message
        if policy == "close" and self._closed_after_fault is None and not self._closed:
            self._closed_after_fault = fault
        self._retire(conn, f"another call on this connection failed ({fault})")
        return message

    # -- listing -------------------------------------------------------------------------

    async def _start(self) -> None:
        await self.refresh()

    async def _list_with_retry(self) -> list[types.Tool]:
        """List on the live connection; after a lost session, reconnect and list once more."""
        conn = await self.connection()
        try:
            return await self._list_all(conn)
        except _SessionLost as lost:
            message = await self.after_fault(MCP_CONNECTION_LOST, conn, lost.message)
            if self.options.on_call_fault == "close":
                raise McpToolListError(self._list_text(message)) from None
        conn = await self.connection()
        try:
            return await self._list_all(conn)
        except _SessionLost as lost:
            message = await self.after_fault(MCP_CONNECTION_LOST, conn, lost.message)
            raise McpToolListError(self._list_text(message)) from None

    def _list_text(self, text: str) -> str:
        return clip(f"tools/list of MCP server {self.server_id!r} failed: {text}")

    async def _list_all(self, conn: Connection) -> list[types.Tool]:
        """One whole paginated listing within ``call_timeout_seconds``; faults apply after it."""
        self._lists += 1
        timeout = self.options.call_timeout_seconds
        failure: _ListFault | None = None
        with anyio.move_on_after(timeout):
            with anyio.CancelScope() as scope:
                state = CallState(scope)
                if not conn.register(state):
                    raise McpToolListError(self._list_text(conn.reason()))
                try:
                    return await self._walk_pages(conn)
                except _ListFault as exc:
                    failure = exc
                finally:
                    conn.unregister(state)
            if failure is None:
                raise McpToolListError(self._list_text(state.lost or conn.reason()))
        if failure is not None:
            return await self._raise_list_fault(conn, failure)
        await self.after_fault(MCP_TIMEOUT, conn, "tools/list timed out")
        raise McpToolListError(
            f"tools/list of MCP server {self.server_id!r}: did not finish within "
            f"call_timeout_seconds={timeout}"
        )

    async def _raise_list_fault(self, conn: Connection, failure: _ListFault) -> NoReturn:
        if isinstance(failure, _SessionLost):
            raise failure
        if failure.fault is not None:
            await self.after_fault(failure.fault, conn, failure.message)
        raise McpToolListError(self._list_text(failure.message))

    async def _walk_pages(self, conn: Connection) -> list[types.Tool]:
        client = conn.client
        assert client is not None
        tools: list[types.Tool] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _page in range(self.options.max_list_pages):
            marks = CallMarks()
            token = current_call.set(marks)
            try:
                page = await client.list_tools(cursor=cursor)
            except (MCPError, RuntimeError, ValueError) as exc:
                raise self._list_failure(conn, exc, marks) from None
            finally:
                current_call.reset(token)
            tools.extend(page.tools)
            if len(tools) > self.options.max_tools:
                raise McpToolListError(
                    f"tools/list of MCP server {self.server_id!r}: lists more than "
                    f"max_tools={self.options.max_tools} tools"
                )
            cursor = page.next_cursor
            if cursor is None:
                return tools
            if cursor in seen:
                raise McpToolListError(
                    f"tools/list of MCP server {self.server_id!r}: repeated a cursor"
                )
            seen.add(cursor)
        raise McpToolListError(
            f"tools/list of MCP server {self.server_id!r}: has more than "
            f"max_list_pages={self.options.max_list_pages} pages of tools"
        )

    def _list_failure(self, conn: Connection, exc: BaseException, marks: CallMarks) -> _ListFault:
        if marks.session_lost:
            return _SessionLost(MCP_CONNECTION_LOST, conn.reason())
        too_large = marks.too_large is not None or (
            isinstance(exc, MCPError) and exc.code == INJECTED_TOO_LARGE
        )
        if too_large:
            cap = read_cap(self.options.max_result_bytes)
            text = f"a tools/list page was larger than {cap_note(cap)}"
            return _ListFault(MCP_RESULT_TOO_LARGE, text)
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
            return _ListFault(MCP_CONNECTION_LOST, f"{exc.message} ({conn.reason()})")
        return _ListFault(None, f"{exc}{describe_status(marks.status)}")

    # -- calls and notifications ---------------------------------------------------------

    def _handler(self, remote: str, name: str) -> ToolHandler:
        oauth = getattr(self._transport, "oauth", None)

        async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
            result = await call_remote_tool(self, remote, name, arguments, context)
            # No credential of ours leaves in a result or an error message, even if echoed.
            return result if oauth is None else oauth.secrets.redact(result)

        execute.__name__ = f"mcp_{remote}"
        return execute

    def map_result(self, result: types.CallToolResult, remote: str, call_id: str) -> ToolResult:
        """Map a ``CallToolResult`` with this bridge's bounds (``name`` is stamped by dispatch)."""
        return map_call_result(
            result,
            call_id=call_id,
            name=self.name_prefix + remote,
            max_bytes=self.options.max_result_bytes,
            details={"mcp_server_id": self.server_id, "mcp_tool_name": remote},
        )

    def _list_changed(self) -> None:
        self._generation += 1
        if self._invalidated:
            return
        self._invalidated = True
        callback = self.on_tools_changed
        if callback is not None and not self._closed:
            self._tg.start_soon(self._notify, callback)

    async def _notify(self, callback: ToolsChangedCallback) -> None:
        try:
            outcome: Any = callback(self)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            logger.exception("on_tools_changed callback for %r raised", self.server_id)
