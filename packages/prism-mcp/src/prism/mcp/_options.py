"""``McpBridgeOptions``: every option of ``connect_mcp_tools``, its default and its hard cap."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, final

from prism.core.options import (
    MIB,
    check_callable,
    check_choice,
    check_count,
    check_instance,
    check_seconds,
)

from ._feature_types import McpClientFeatures

if TYPE_CHECKING:
    from ._bridge import McpToolBridge

__all__ = ["CallFaultPolicy", "McpBridgeOptions", "ProtocolMode", "ToolsChangedCallback"]

CallFaultPolicy = Literal["reconnect", "close", "keep"]
ProtocolMode = Literal["auto", "legacy"]
ToolsChangedCallback = Callable[["McpToolBridge"], "None | Awaitable[None]"]

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{0,64}")
_SECONDS_CAPS = {
    "list_cache_ttl_seconds": 86_400.0,
    "call_timeout_seconds": 1_800.0,
    "connect_timeout_seconds": 300.0,
    "close_grace_seconds": 30.0,
}
_COUNT_CAPS = {
    "max_result_bytes": 16 * MIB,
    "max_tools": 5_000,
    "max_schema_bytes": 1 * MIB,
    "max_list_pages": 1_000,
    "max_description_bytes": 65_536,
}


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class McpBridgeOptions:
    """Bounds and policies of one MCP bridge. Invalid values raise ``ValueError`` at construction.

    Sizes are bytes, durations float seconds; each bound has a hard cap (exactly the cap is fine).
    """

    list_cache_ttl_seconds: float = 30.0
    """How long a listing stays fresh: ``refresh()`` within it sends no request unless stale."""
    call_timeout_seconds: float = 60.0
    """Bound on one ``tools/call`` (and on one whole paginated ``tools/list``)."""
    connect_timeout_seconds: float = 30.0
    """Bound on spawning/connecting and the protocol handshake."""
    max_result_bytes: int = 10_000_000
    """Cap on each mapped result, counted as rendered; the read cap on a message is twice it."""
    max_tools: int = 500
    """More tools than this in one listing fails the refresh."""
    max_schema_bytes: int = 262_144
    """A tool whose encoded ``inputSchema`` is larger is skipped with a warning."""
    max_list_pages: int = 100
    """More ``tools/list`` pages than this fails the refresh (a cursor that never ends)."""
    max_description_bytes: int = 8_192
    """Longer tool descriptions are cut (with a warning)."""
    close_grace_seconds: float = 2.0
    """On a normal close, how long a stdio server may take to exit after stdin closes."""
    on_call_fault: CallFaultPolicy = "reconnect"
    """After a timeout, oversize or lost connection: reopen lazily, stay closed, or keep it."""
    protocol_mode: ProtocolMode = "auto"
    """``"auto"`` negotiates 2026-07-28 when the server can, else the handshake era."""
    name_prefix: str | None = None
    """Prefix of every tool name; ``None`` means ``mcp:<server_id>:``."""
    on_tools_changed: ToolsChangedCallback | None = None
    """Called with the bridge when the server announces that its tools changed."""
    client_features: McpClientFeatures | None = None
    """Elicitation, sampling and roots for the server, each under the host's permission policy."""

    def __post_init__(self) -> None:
        for name, seconds_cap in _SECONDS_CAPS.items():
            where = f"McpBridgeOptions.{name}"
            seconds = check_seconds(where, getattr(self, name), cap=seconds_cap)
            object.__setattr__(self, name, seconds)
        for name, count_cap in _COUNT_CAPS.items():
            check_count(f"McpBridgeOptions.{name}", getattr(self, name), cap=count_cap)
        check_choice("McpBridgeOptions.on_call_fault", self.on_call_fault, _FAULT_POLICIES)
        check_choice("McpBridgeOptions.protocol_mode", self.protocol_mode, ("auto", "legacy"))
        prefix = self.name_prefix
        if prefix is not None and (not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix)):
            raise (ValueError if isinstance(prefix, str) else TypeError)(
                "McpBridgeOptions.name_prefix must be a str matching ^[A-Za-z0-9_.:-]{0,64}$ "
                f"or None, got {prefix!r:.200}"
            )
        check_callable("McpBridgeOptions.on_tools_changed", self.on_tools_changed, optional=True)
        features = self.client_features
        check_instance(
            "McpBridgeOptions.client_features", features, McpClientFeatures, optional=True
        )


_FAULT_POLICIES = ("reconnect", "close", "keep")
