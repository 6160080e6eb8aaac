"""``McpBridgeOptions``: every option of ``connect_mcp_tools``, its default and its hard cap."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import attrs

from ._bounds import count_bound, seconds_bound
from ._feature_types import McpClientFeatures

if TYPE_CHECKING:
    from ._bridge import McpToolBridge

__all__ = ["CallFaultPolicy", "McpBridgeOptions", "ProtocolMode", "ToolsChangedCallback"]

CallFaultPolicy = Literal["reconnect", "close", "keep"]
ProtocolMode = Literal["auto", "legacy"]
ToolsChangedCallback = Callable[["McpToolBridge"], "None | Awaitable[None]"]

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{0,64}")


def _seconds(value: object) -> object:
    """Accept an int number of seconds as a float; leave anything else to the validator."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _check_choice(choices: tuple[str, ...]) -> Callable[[Any, Any, object], None]:
    def validate(_instance: Any, attribute: Any, value: object) -> None:
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {choices}, got {value!r}")

    return validate


def _check_prefix(_instance: Any, _attribute: Any, value: object) -> None:
    if value is None:
        return
    if not isinstance(value, str) or _PREFIX.fullmatch(value) is None:
        raise ValueError(f"name_prefix must match ^[A-Za-z0-9_.:-]{{0,64}}$, got {value!r}")


def _check_callback(_instance: Any, _attribute: Any, value: object) -> None:
    if value is not None and not callable(value):
        raise ValueError(f"on_tools_changed must be callable or None, got {value!r}")


def _check_flag(_instance: Any, attribute: Any, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{attribute.name} must be a bool, got {value!r}")


def _check_features(_instance: Any, _attribute: Any, value: object) -> None:
    if value is not None and not isinstance(value, McpClientFeatures):
        raise ValueError(f"client_features must be McpClientFeatures or None, got {value!r}")


@attrs.frozen(kw_only=True)
class McpBridgeOptions:
    """Bounds and policies of one MCP bridge. Invalid values raise ``ValueError`` at construction.

    Sizes are bytes, durations float seconds; each bound has a hard cap (exactly the cap is fine).
    """

    list_cache_ttl_seconds: float = attrs.field(
        default=30.0, converter=_seconds, validator=seconds_bound(86_400.0)
    )
    """How long a listing stays fresh: ``refresh()`` within it sends no request unless stale."""
    call_timeout_seconds: float = attrs.field(
        default=60.0, converter=_seconds, validator=seconds_bound(1_800.0)
    )
    """Bound on one ``tools/call`` (and on one whole paginated ``tools/list``)."""
    connect_timeout_seconds: float = attrs.field(
        default=30.0, converter=_seconds, validator=seconds_bound(300.0)
    )
    """Bound on spawning/connecting and the protocol handshake."""
    max_result_bytes: int = attrs.field(default=10_000_000, validator=count_bound(16_777_216))
    """Cap on every message the server sends (checked while reading) and on each mapped result."""
    max_tools: int = attrs.field(default=500, validator=count_bound(5_000))
    """More tools than this in one listing fails the refresh."""
    max_schema_bytes: int = attrs.field(default=262_144, validator=count_bound(1_048_576))
    """A tool whose encoded ``inputSchema`` is larger is skipped with a warning."""
    max_list_pages: int = attrs.field(default=100, validator=count_bound(1_000))
    """More ``tools/list`` pages than this fails the refresh (a cursor that never ends)."""
    max_description_bytes: int = attrs.field(default=8_192, validator=count_bound(65_536))
    """Longer tool descriptions are cut (with a warning)."""
    close_grace_seconds: float = attrs.field(
        default=2.0, converter=_seconds, validator=seconds_bound(30.0)
    )
    """On a normal close, how long a stdio server may take to exit after stdin closes."""
    on_call_fault: CallFaultPolicy = attrs.field(
        default="reconnect", validator=_check_choice(("reconnect", "close", "keep"))
    )
    """After a timeout, oversize or lost connection: reopen lazily, stay closed, or keep it."""
    protocol_mode: ProtocolMode = attrs.field(
        default="auto", validator=_check_choice(("auto", "legacy"))
    )
    """``"auto"`` negotiates 2026-07-28 when the server can, else the handshake era."""
    name_prefix: str | None = attrs.field(default=None, validator=_check_prefix)
    """Prefix of every tool name; ``None`` means ``mcp:<server_id>:``."""
    on_tools_changed: ToolsChangedCallback | None = attrs.field(
        default=None, validator=_check_callback
    )
    """Called with the bridge when the server announces that its tools changed."""
    client_features: McpClientFeatures | None = attrs.field(default=None, validator=_check_features)
    """Elicitation, sampling and roots for the server, each under the host's permission policy."""
