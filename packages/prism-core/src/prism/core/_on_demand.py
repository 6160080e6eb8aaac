"""Names the pipeline needs only when a gate or an event sink is set, loaded on first access.

A dispatch with no gates and no sink never touches them, so first use does not create the
gate modules' and the events' classes (each frozen dataclass is compiled from generated source
when its module loads). The first access to any of them (PEP 562) loads them all, as a dispatch
with any gate or sink needs most of them, binds each as a plain module global and removes the
hook: from then on ``_on_demand.tool_allowed`` is an ordinary module attribute, which CPython
looks up as fast as a global (a module with ``__getattr__`` is looked up the slow way).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._fastinit import positional_factory

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._backend import to_thread
    from ._filter import tool_allowed
    from ._gates import ToolGates
    from ._ledger import ToolCallRecord, new_record_id
    from ._permission import PermissionDecision, PermissionRequest, ask_permission
    from ._weight import LOOP_WEIGHT, heavier_than
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
    "LOOP_WEIGHT",
    "PermissionDecision",
    "ToolExecutionBlocked",
    "ToolExecutionFailed",
    "ToolExecutionProgress",
    "ToolGates",
    "ask_permission",
    "heavier_than",
    "make_finished",
    "make_record",
    "make_request",
    "make_started",
    "new_record_id",
    "to_thread",
    "tool_allowed",
]

_HOMES: dict[str, str] = {
    "LOOP_WEIGHT": "._weight",
    "PermissionDecision": "._permission",
    "ToolExecutionBlocked": ".events",
    "ToolExecutionFailed": ".events",
    "ToolExecutionProgress": ".events",
    "ToolGates": "._gates",
    "ask_permission": "._permission",
    "heavier_than": "._weight",
    "new_record_id": "._ledger",
    "to_thread": "._backend",
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
    """Load every name (on the first access to any of them) and return ``name``."""
    if name not in _HOMES and name not in _FACTORIES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load_all()
    return globals()[name]


def _load_all() -> None:
    namespace = globals()
    for name, home in _HOMES.items():
        namespace[name] = getattr(importlib.import_module(home, __package__), name)
    for name, (home, cls, order) in _FACTORIES.items():
        record = getattr(importlib.import_module(home, __package__), cls)
        namespace[name] = positional_factory(record, tuple(order.split()))
    namespace.pop("__getattr__", None)  # every name is bound: attribute lookups go the fast way


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
