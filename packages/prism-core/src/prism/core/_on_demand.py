"""Names the pipeline needs only when a gate or an event sink is set, loaded on first access.

A dispatch with no gates and no sink never touches them, so first use does not create the
gate modules' and the events' classes (each frozen dataclass is compiled from generated source
when its module loads). Each name resolves once (PEP 562) and is then a plain module global:
``_on_demand.tool_allowed`` costs the hot path one attribute lookup.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._fastinit import positional_factory

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._filter import tool_allowed
    from ._gates import ToolGates
    from ._ledger import ToolCallRecord, new_record_id
    from ._permission import PermissionDecision, PermissionRequest, ask_permission
    from .events import (
        ToolExecutionBlocked,
        ToolExecutionFailed,
        ToolExecutionFinished,
        ToolExecutionProgress,
        ToolExecutionStarted,
    )

    make_record: Callable[..., ToolCallRecord]
    """``ToolCallRecord`` from its fields in order (id, session_id, run_id, tool_call_id, name,
    arguments, status, reason, result, started_at, finished_at)."""
    make_request: Callable[..., PermissionRequest]
    """``PermissionRequest`` from its fields in order (kind, target, action, metadata)."""
    make_started: Callable[..., ToolExecutionStarted]
    """``ToolExecutionStarted`` from its fields in order (session_id, run_id, call, type)."""
    make_finished: Callable[..., ToolExecutionFinished]
    """``ToolExecutionFinished`` from its fields in order (session_id, run_id, call, result,
    duration_seconds, type)."""

__all__ = [
    "PermissionDecision",
    "ToolExecutionBlocked",
    "ToolExecutionFailed",
    "ToolExecutionProgress",
    "ToolGates",
    "ask_permission",
    "make_finished",
    "make_record",
    "make_request",
    "make_started",
    "new_record_id",
    "tool_allowed",
]

_HOMES: dict[str, str] = {
    "PermissionDecision": "._permission",
    "ToolExecutionBlocked": ".events",
    "ToolExecutionFailed": ".events",
    "ToolExecutionProgress": ".events",
    "ToolGates": "._gates",
    "ask_permission": "._permission",
    "new_record_id": "._ledger",
    "tool_allowed": "._filter",
}
"""Where each plain name lives."""

_FACTORIES: dict[str, tuple[str, str, str]] = {
    "make_record": (
        "._ledger",
        "ToolCallRecord",
        "id session_id run_id tool_call_id name arguments status reason result started_at"
        " finished_at",
    ),
    "make_request": ("._permission", "PermissionRequest", "kind target action metadata"),
    "make_started": (".events", "ToolExecutionStarted", "session_id run_id call type"),
    "make_finished": (
        ".events",
        "ToolExecutionFinished",
        "session_id run_id call result duration_seconds type",
    ),
}
"""Positional factories (``positional_factory``): home, class, and the field order their callers
pass (checked against the class when the factory is built)."""


def __getattr__(name: str) -> Any:
    """Load ``name``'s module, bind the name here as a plain global, and return it."""
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name], __package__), name)
    elif name in _FACTORIES:
        home, cls, order = _FACTORIES[name]
        value = positional_factory(
            getattr(importlib.import_module(home, __package__), cls), tuple(order.split())
        )
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
