"""``connect_mcp_tools``: the async context manager that owns one bridge and its tasks."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from prism.core import AbortSignal

from ._errors import McpConnectError
from ._options import McpBridgeOptions
from ._transports import (
    InMemoryTransport,
    McpTransport,
    StdioTransport,
    StreamableHttpTransport,
)

if TYPE_CHECKING:
    from ._bridge import McpToolBridge

__all__ = ["connect_mcp_tools"]

_SERVER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _check(server_id: object, transport: object) -> None:
    if not isinstance(server_id, str) or _SERVER_ID.fullmatch(server_id) is None:
        error = ValueError if isinstance(server_id, str) else TypeError
        raise error(
            "connect_mcp_tools.server_id must be a str matching "
            f"^[A-Za-z0-9][A-Za-z0-9._-]{{0,63}}$, got {server_id!r:.200}"
        )
    if not isinstance(transport, (StdioTransport, StreamableHttpTransport, InMemoryTransport)):
        raise TypeError(
            "connect_mcp_tools.transport must be a StdioTransport, a StreamableHttpTransport "
            f"or an InMemoryTransport, got a {type(transport).__name__}"
        )


_DEFAULT = McpBridgeOptions()


@asynccontextmanager
async def connect_mcp_tools(
    *,
    server_id: str,
    transport: McpTransport,
    options: McpBridgeOptions | None = None,
    signal: AbortSignal | None = None,
) -> AsyncIterator[McpToolBridge]:
    """Connect to one MCP server and list its tools; yields the bridge.

    Entering connects (``options.connect_timeout_seconds``) and lists, so ``bridge.tools`` is
    filled and ``bridge.stale`` is False; it raises ``McpConnectError``, ``McpToolListError`` or
    ``McpToolNameCollisionError`` when that fails. ``signal`` aborts the connect (then
    ``McpConnectError``); cancelling the enclosing scope works too. ``options`` (bounds and
    policies, validated when built) default to ``McpBridgeOptions()``. Leaving closes
    everything: no process of a stdio server's process group remains. The MCP SDK is imported
    here, lazily.
    """
    _check(server_id, transport)
    if options is None:
        options = _DEFAULT
    elif not isinstance(options, McpBridgeOptions):
        raise TypeError(
            f"connect_mcp_tools.options must be a McpBridgeOptions or None, got {options!r:.200}"
        )
    async with _bridge_scope(server_id, transport, options, signal) as bridge:
        yield bridge


@asynccontextmanager
async def _bridge_scope(
    server_id: str, transport: McpTransport, opts: McpBridgeOptions, signal: AbortSignal | None
) -> AsyncIterator[McpToolBridge]:
    """Own one started bridge and its task group; the host's exception comes out as itself."""
    from ._bridge import McpToolBridge  # the SDK loads on first connect, not on import

    failure: BaseException | None = None
    # The body runs outside any task group error handling of ours: a host exception must come
    # out as itself, not wrapped in an ExceptionGroup, so it is caught here and re-raised below.
    async with anyio.create_task_group() as tg:
        bridge = McpToolBridge(
            server_id=server_id, transport=transport, options=opts, task_group=tg
        )
        try:
            await _start(bridge, signal)
        except BaseException as exc:
            failure = exc
        if failure is None:
            try:
                yield bridge
            except BaseException as exc:
                failure = exc
        with anyio.CancelScope(shield=True):
            await bridge.close()
        tg.cancel_scope.cancel()
    if failure is not None:
        raise failure


async def _start(bridge: McpToolBridge, signal: AbortSignal | None) -> None:
    """Connect and list; an abort of ``signal`` ends it with ``McpConnectError``."""
    if signal is None:
        await bridge._start()
        return
    from ._calls import arm_abort

    aborted: list[bool] = []
    with anyio.CancelScope() as scope:
        remove = arm_abort(signal, scope, aborted)
        try:
            if signal.aborted:
                aborted.append(True)
            else:
                await bridge._start()
        finally:
            remove()
    if aborted:
        raise McpConnectError(f"could not connect to MCP server {bridge.server_id!r}: aborted")
