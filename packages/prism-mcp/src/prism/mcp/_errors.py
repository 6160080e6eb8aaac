"""Exceptions a host may catch, the error codes of error results, and message clipping."""

from __future__ import annotations

from typing import Final, final

from prism.core import PrismError

# What ``prism.mcp`` re-exports; ``MAX_MESSAGE_BYTES`` and ``clip`` are for the bridge's modules.
__all__ = [
    "MCP_ABORTED",
    "MCP_CONNECTION_LOST",
    "MCP_PROTOCOL_ERROR",
    "MCP_RESULT_TOO_LARGE",
    "MCP_TIMEOUT",
    "MCP_TOOL_ERROR",
    "McpBridgeError",
    "McpConnectError",
    "McpToolListError",
    "McpToolNameCollisionError",
    "McpToolSkippedWarning",
]

MCP_TIMEOUT: Final = "mcp_timeout"
MCP_ABORTED: Final = "mcp_aborted"
MCP_RESULT_TOO_LARGE: Final = "mcp_result_too_large"
MCP_CONNECTION_LOST: Final = "mcp_connection_lost"
MCP_TOOL_ERROR: Final = "mcp_tool_error"
MCP_PROTOCOL_ERROR: Final = "mcp_protocol_error"
"""Beyond the common error codes: the server answered with something that is not valid MCP."""

MAX_MESSAGE_BYTES: Final = 8192
"""Every error message this package produces is at most this many UTF-8 bytes."""


def clip(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, marked with an ellipsis when cut."""
    if len(text) * 4 <= limit:
        return text
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    return raw[: limit - 3].decode("utf-8", "ignore") + "..."


class McpBridgeError(PrismError):
    """Base class of the exceptions ``prism.mcp`` raises into the host."""


@final
class McpConnectError(McpBridgeError, ConnectionError):
    """Connecting to the server failed: spawn, handshake, timeout, or the connection was closed."""


class McpToolListError(McpBridgeError, RuntimeError):
    """Listing the server's tools failed or broke a bound; the previous tools are kept."""


@final
class McpToolNameCollisionError(McpToolListError):
    """Two remote tools map to one Prism tool name; the refresh failed and nothing changed."""

    def __init__(self, name: str, server_id: str) -> None:
        self.name = name
        self.server_id = server_id
        super().__init__(
            f"MCP server {server_id!r} lists two tools that both map to {name!r}; "
            "the tool list was not changed"
        )


@final
class McpToolSkippedWarning(PrismError, UserWarning):
    """A remote tool was left out: its name or schema broke a rule or a bound."""
