"""A conformance subject whose every call goes through the MCP-served registry.

``served_subjects()`` replaces ``dispatch``: the call's registry is served by
``prism.mcp.server.McpToolServer`` (the gates given to dispatch become the served pipeline's),
and the call is made by Prism's own MCP client over stdio, so each row exercises what an MCP
client of a Prism server gets: the JSON-RPC wire, result mapping, cancellation and errors.
anyio and prism-mcp are imported on use: prism-conformance itself runs without them.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from typing import TYPE_CHECKING

from prism.core import (
    AbortController,
    ErrorInfo,
    ToolCall,
    ToolExecutionContext,
    ToolGates,
    ToolLookup,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)
from prism.core.events import EventSink

from ._subjects import ConformanceSubjects, default_subjects

if TYPE_CHECKING:
    import anyio.abc

    from prism.mcp.server import McpToolServer

__all__ = ["SERVED_UNSUPPORTED_ROWS", "served_dispatch", "served_subjects"]

CALL_TIMEOUT_SECONDS = 600.0
CONNECT_TIMEOUT_SECONDS = 30.0

SERVED_UNSUPPORTED_ROWS: dict[str, str] = {
    "15": "its no-read check counts this whole process's input bytes (/proc/self/io), and the "
    "stdio client living in the same process reads /proc to reap the server's process group",
    "E3": "MCP cancellation has no response: a client that cancels a call gets no result from "
    "the server, so the aborted call's error cannot carry the command's output tail",
}
"""Coding rows that cannot apply through a server, with the reason (see docs/mcp-server.md)."""


async def served_dispatch(
    call: ToolCall,
    *,
    registry: ToolLookup,
    context: ToolExecutionContext | None = None,
    gates: ToolGates | None = None,
    emit: EventSink | None = None,
) -> ToolResult:
    """Like ``dispatch_tool_call``, but ``registry`` is served over MCP and called through it.

    The ``gates`` (filter, middleware, permission, validator, ledger, redaction) and the
    events are the served pipeline's, so they run on the server as they would for any MCP
    client. Aborting ``context.signal`` cancels the call over the wire.
    """
    pipeline = ToolPipeline(registry=registry, gates=gates or ToolGates(), emit=emit)
    if context is None:
        context = ToolExecutionContext(
            session_id="served", run_id="served", tool_call_id=call.id,
            signal=AbortController().signal,
        )  # fmt: skip
    return await _call_served(pipeline, call, context)


async def _call_served(
    pipeline: ToolPipeline, call: ToolCall, context: ToolExecutionContext
) -> ToolResult:
    """Serve ``pipeline`` for one client connection and make ``call`` through Prism's client."""
    import anyio

    from prism.mcp import McpBridgeOptions, StdioTransport, connect_mcp_tools
    from prism.mcp.server import McpToolServer, ServeOptions

    from ._served_wire import relay_command

    server = McpToolServer(pipeline, ServeOptions(name="prism-served-subject"))
    folder = tempfile.mkdtemp(prefix="prism-served-")
    try:
        socket_path = os.path.join(folder, "mcp.sock")
        listener = await anyio.create_unix_listener(socket_path)
        command, args = relay_command(socket_path)
        async with listener, anyio.create_task_group() as group:
            group.start_soon(_serve_one, listener, server)
            try:
                async with connect_mcp_tools(
                    server_id="served",
                    transport=StdioTransport(command, args=args),
                    signal=context.signal,
                    options=McpBridgeOptions(
                        name_prefix="",
                        call_timeout_seconds=CALL_TIMEOUT_SECONDS,
                        connect_timeout_seconds=CONNECT_TIMEOUT_SECONDS,
                    ),
                ) as bridge:
                    served = ToolRegistry(bridge.tools)
                    result = await dispatch_tool_call(call, registry=served, context=context)
            except Exception as exc:  # connect failed or was aborted: an error, as a host sees it
                result = _not_served(call, exc)
            group.cancel_scope.cancel()
        return result
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)


async def _serve_one(listener: anyio.abc.SocketListener, server: McpToolServer) -> None:
    from ._served_wire import serve_connection

    stream = await listener.accept()
    await serve_connection(server, stream)


def _not_served(call: ToolCall, exc: Exception) -> ToolResult:
    message = f"the served registry could not be reached: {type(exc).__name__}: {exc}"
    return ToolResult(
        tool_call_id=call.id, name=call.name, error=ErrorInfo(message=message, code="mcp_connect")
    )


def served_subjects(base: ConformanceSubjects | None = None) -> ConformanceSubjects:
    """``base`` (default: ``default_subjects()``) with calls going through the served registry.

    Needs ``prism-mcp`` (with its server side): without it this raises ``ImportError`` rather
    than quietly testing the plain dispatch. Rows in ``SERVED_UNSUPPORTED_ROWS`` do not apply.
    """
    import anyio  # noqa: F401  (fail now, not in every row)

    import prism.mcp.server  # noqa: F401

    subjects = base if base is not None else default_subjects()
    return dataclasses.replace(subjects, dispatch=served_dispatch)
