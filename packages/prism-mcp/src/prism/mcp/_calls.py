"""One ``tools/call`` through the bridge: timeout, abort, byte bound, and typed error results.

Nothing here raises into the host except the host's own cancellation: every failure of the
server, the transport or the SDK becomes an error ``ToolResult`` with an ``mcp_*`` code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import pydantic
from anyio.lowlevel import EventLoopToken

from mcp import MCPError, types
from mcp.shared.dispatcher import ProgressFnT
from prism.core import AbortSignal, JsonObject, ToolExecutionContext, ToolResult

from ._connection import CallState, Connection
from ._content import error_result
from ._errors import (
    MCP_ABORTED,
    MCP_CONNECTION_LOST,
    MCP_PROTOCOL_ERROR,
    MCP_RESULT_TOO_LARGE,
    MCP_TIMEOUT,
    MCP_TOOL_ERROR,
    McpConnectError,
    clip,
)
from ._http import CallMarks, current_call, describe_status
from ._stdio import INJECTED_MALFORMED, INJECTED_TOO_LARGE

if TYPE_CHECKING:
    from ._bridge import McpToolBridge

__all__ = ["arm_abort", "call_remote_tool", "plain_json"]

logger = logging.getLogger("prism.mcp")

_NO_PROGRESS = next(
    f.default for f in dataclasses.fields(ToolExecutionContext) if f.name == "progress"
)


@dataclass(slots=True)
class _Outcome:
    """What happened to one call: a result, or a fault to report after cleanup."""

    result: ToolResult | None = None
    fault: str | None = None  # code of a fault that may close the connection
    message: str = ""
    retry: bool = False  # the request cannot have reached a handler (the session was lost)


@dataclass(slots=True)
class _Call:
    """One host call in flight: what to send, and the connections and deadline it used."""

    bridge: McpToolBridge
    remote: str
    arguments: JsonObject
    context: ToolExecutionContext
    state: CallState
    used: list[Connection] = dataclasses.field(default_factory=list)
    deadline: float | None = None  # set once, when the first try is connected


def plain_json(value: Any) -> Any:
    """A deep copy of a JSON value with every mapping a ``dict`` and every sequence a ``list``."""
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value


def _progress(context: ToolExecutionContext) -> ProgressFnT | None:
    """Forward MCP progress to ``context.progress``, dropping updates while one is delivered.

    ``None`` (no progress token is sent) when the context's progress is the no-op default.
    """
    if context.progress is _NO_PROGRESS:
        return None
    busy = False

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        nonlocal busy
        if busy:
            return
        busy = True
        try:
            fraction = progress / total if total else None
            await context.progress(fraction, message)
        except Exception:
            logger.debug("progress callback raised", exc_info=True)
        finally:
            busy = False

    return forward


def _cancel_from_thread(scope: anyio.CancelScope, token: EventLoopToken) -> None:
    with contextlib.suppress(Exception):  # the loop may be gone: nothing left to cancel
        anyio.from_thread.run_sync(scope.cancel, token=token)


def arm_abort(
    signal: AbortSignal, scope: anyio.CancelScope, aborted: list[bool]
) -> Callable[[], None]:
    """Cancel ``scope`` when ``signal`` aborts; returns the remover.

    An abort from the event loop's thread cancels at once; one from another thread is handed
    to the loop by a short-lived helper thread, so the aborting thread never blocks.
    """
    loop_thread = threading.get_ident()
    token = anyio.lowlevel.current_token()

    def fire() -> None:
        aborted.append(True)
        if threading.get_ident() == loop_thread:
            scope.cancel()
        else:
            threading.Thread(target=_cancel_from_thread, args=(scope, token), daemon=True).start()

    return signal.add_callback(fire)


def _ours(exc: MCPError, conn: Connection) -> bool:
    data = exc.data
    return isinstance(data, dict) and data.get("prism_mcp") == conn.nonce


def _from_mcp_error(exc: MCPError, conn: Connection, marks: CallMarks) -> _Outcome:
    if marks.session_lost:
        why = f"the server no longer knows our session{describe_status(marks.status)}"
        return _Outcome(fault=MCP_CONNECTION_LOST, message=why, retry=True)
    if marks.too_large is not None:
        return _Outcome(fault=MCP_RESULT_TOO_LARGE, message=f"the server sent {marks.too_large}")
    if exc.code == INJECTED_TOO_LARGE and _ours(exc, conn):
        return _Outcome(fault=MCP_RESULT_TOO_LARGE, message=exc.message)
    if exc.code == INJECTED_MALFORMED and _ours(exc, conn):
        return _Outcome(fault=MCP_PROTOCOL_ERROR, message=exc.message)
    if exc.code == types.CONNECTION_CLOSED:
        return _Outcome(fault=MCP_CONNECTION_LOST, message=exc.message)
    if exc.code == types.REQUEST_TIMEOUT:
        return _Outcome(fault=MCP_TIMEOUT, message=exc.message)
    if exc.code == types.PARSE_ERROR:
        return _Outcome(fault=MCP_PROTOCOL_ERROR, message=exc.message)
    status = describe_status(marks.status)
    return _Outcome(
        fault=MCP_TOOL_ERROR, message=f"MCP server error {exc.code}: {exc.message}{status}"
    )


async def _request(call: _Call, conn: Connection) -> _Outcome:
    """Send the call on ``conn`` and classify what comes back."""
    client = conn.client
    state, context = call.state, call.context
    if client is None or not conn.register(state):
        return _Outcome(fault=MCP_CONNECTION_LOST, message=conn.reason())
    marks = CallMarks()
    token = current_call.set(marks)
    try:
        result = await client.call_tool(
            call.remote, plain_json(call.arguments), progress_callback=_progress(context)
        )
    except MCPError as exc:
        return _from_mcp_error(exc, conn, marks)
    except (RuntimeError, pydantic.ValidationError) as exc:
        if marks.too_large is not None:
            sent = f"the server sent {marks.too_large}"
            return _Outcome(fault=MCP_RESULT_TOO_LARGE, message=sent)
        return _Outcome(fault=MCP_PROTOCOL_ERROR, message=f"invalid result from the server: {exc}")
    except Exception as exc:
        return _Outcome(fault=MCP_CONNECTION_LOST, message=f"{type(exc).__name__}: {exc}")
    finally:
        current_call.reset(token)
        conn.unregister(state)
    return _Outcome(result=call.bridge.map_result(result, call.remote, context.tool_call_id))


async def _attempt(call: _Call) -> _Outcome:
    """Call once; after a lost session, reconnect (unless the policy is ``close``) and retry once.

    Both tries share one ``call_timeout_seconds`` deadline, set once the first is connected.
    """
    bridge = call.bridge
    try:
        outcome = await _attempt_once(call)
        if not outcome.retry or bridge.options.on_call_fault == "close":
            return outcome
        await bridge.after_fault(MCP_CONNECTION_LOST, call.used[-1], outcome.message)
        return await _attempt_once(call)
    except Exception as exc:  # a bug or an SDK surprise must still give the model a result
        logger.exception("MCP call to %r failed unexpectedly", call.remote)
        return _Outcome(fault=MCP_PROTOCOL_ERROR, message=f"{type(exc).__name__}: {exc}")


async def _attempt_once(call: _Call) -> _Outcome:
    try:
        conn = await call.bridge.connection()
    except McpConnectError as exc:
        return _Outcome(fault=MCP_CONNECTION_LOST, message=str(exc))
    call.used.append(conn)
    timeout = call.bridge.options.call_timeout_seconds
    if call.deadline is None:
        call.deadline = anyio.current_time() + timeout
    with anyio.CancelScope(deadline=call.deadline) as scope:
        return await _request(call, conn)
    if call.state.lost is not None or not scope.cancelled_caught:
        return _Outcome(fault=MCP_CONNECTION_LOST, message=call.state.lost or conn.reason())
    return _Outcome(fault=MCP_TIMEOUT, message=f"no answer within call_timeout_seconds={timeout}")


_SENTENCES = {
    MCP_TIMEOUT: "MCP tool {tool!r} on server {server!r} timed out: {why}",
    MCP_ABORTED: "MCP tool {tool!r} on server {server!r} was aborted: {why}",
    MCP_RESULT_TOO_LARGE: "MCP tool {tool!r} on server {server!r} returned too much: {why}",
    MCP_CONNECTION_LOST: "MCP tool {tool!r}: lost the connection to server {server!r}: {why}",
    MCP_TOOL_ERROR: "MCP tool {tool!r} on server {server!r} failed: {why}",
    MCP_PROTOCOL_ERROR: "MCP tool {tool!r}: server {server!r} broke the protocol: {why}",
}


async def call_remote_tool(
    bridge: McpToolBridge,
    remote: str,
    name: str,
    arguments: JsonObject,
    context: ToolExecutionContext,
) -> ToolResult:
    """Call ``remote`` on the bridge's server; always returns a ``ToolResult``."""
    details = {"mcp_server_id": bridge.server_id, "mcp_tool_name": remote}
    outcome: _Outcome | None = None
    aborted: list[bool] = []
    used: list[Connection] = []
    if context.signal.aborted:
        outcome = _Outcome(fault=MCP_ABORTED, message="aborted before the request was sent")
    else:
        with anyio.CancelScope() as scope:
            call = _Call(bridge, remote, arguments, context, CallState(scope), used)
            remove = arm_abort(context.signal, scope, aborted)
            try:
                outcome = await _attempt(call)
            finally:
                remove()
        if outcome is None:
            outcome = _ended_from_outside(call.state, aborted, used)
    if outcome.result is not None:
        return outcome.result
    assert outcome.fault is not None
    conn = used[-1] if used else None
    message = await bridge.after_fault(outcome.fault, conn, outcome.message)
    sentence = _SENTENCES[outcome.fault].format(
        tool=remote, server=bridge.server_id, why=clip(message, 6_000)
    )
    return error_result(context.tool_call_id, name, outcome.fault, sentence, details)


def _ended_from_outside(
    state: CallState, aborted: Sequence[bool], used: Sequence[Connection]
) -> _Outcome:
    if aborted:
        return _Outcome(fault=MCP_ABORTED, message="the caller aborted; the server was told")
    reason = state.lost or (used[-1].reason() if used else "the connection ended")
    return _Outcome(fault=MCP_CONNECTION_LOST, message=reason)
