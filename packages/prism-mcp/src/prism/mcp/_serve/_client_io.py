"""What a served tool may send to, or ask of, the MCP client of its call: log messages (under
the client's ``logging/setLevel``) and an elicitation (a question for the user)."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import anyio
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError

from ._announce import connection_of
from ._approval import CURRENT_REQUEST

__all__ = ["LogLevel", "ask_client", "log_to_client", "set_log_level"]

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
_ORDER: tuple[LogLevel, ...] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip
_LEVEL_KEY = "dev.prism/log_level"
DEFAULT_LOG_LEVEL: LogLevel = "info"
"""What a handshake-era client gets before it sends ``logging/setLevel``."""


async def set_log_level(
    ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
) -> types.EmptyResult:
    """``logging/setLevel``: from now on this connection gets messages at ``level`` and above."""
    connection = connection_of(ctx)
    if connection is not None:
        connection.state[_LEVEL_KEY] = params.level
    return types.EmptyResult()


def _wanted(ctx: ServerRequestContext[Any], level: LogLevel) -> bool:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # a per-request opt-in in its _meta
        return level in allowed_log_levels(ctx.protocol_version, ctx.meta)
    connection = connection_of(ctx)
    floor = DEFAULT_LOG_LEVEL if connection is None else connection.state.get(_LEVEL_KEY)
    return _ORDER.index(level) >= _ORDER.index(floor or DEFAULT_LOG_LEVEL)


async def log_to_client(level: LogLevel, data: Any, *, logger: str | None = None) -> bool:
    """Send a ``notifications/message`` to the client of the served call running now.

    ``data`` is any JSON value. Returns whether it was sent: ``False`` outside a served call,
    below the client's level, or when the client went away (a log never fails the tool).
    """
    if level not in _ORDER:
        raise ValueError(
            f"log_to_client.level must be one of {', '.join(_ORDER)}, got {level!r:.200}"
        )
    ctx = CURRENT_REQUEST.get()
    if ctx is None or not _wanted(ctx, level):
        return False
    params = types.LoggingMessageNotificationParams(level=level, data=data, logger=logger)
    notification = types.LoggingMessageNotification(params=params)
    try:
        await ctx.session.send_notification(notification, related_request_id=ctx.request_id)
    except Exception:  # a client that went away must not fail the tool
        return False
    return True


async def ask_client(
    message: str, schema: dict[str, Any], *, timeout_seconds: float = 120.0
) -> types.ElicitResult | None:
    """Ask the client's user through an elicitation (form mode) from the served call running now.

    Returns the client's answer (``action`` accept/decline/cancel, ``content``), or ``None`` when
    no one can be asked: outside a served call, a client without the elicitation capability, a
    connection with no channel for server requests (2026-07-28), or no answer in time.
    """
    if not 0 < timeout_seconds <= 3600:
        raise ValueError(
            f"ask_client.timeout_seconds must be in (0, 3600], got {timeout_seconds!r:.200}"
        )
    ctx = CURRENT_REQUEST.get()
    if ctx is None or not _can_elicit(ctx):
        return None
    with anyio.move_on_after(timeout_seconds):
        try:
            return await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
        except NoBackChannelError:
            return None
    return None


def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    try:
        return ctx.session.check_client_capability(wanted)
    except Exception:
        return False
