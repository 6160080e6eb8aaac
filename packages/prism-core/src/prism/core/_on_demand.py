"""Names the pipeline needs only when a gate or an event sink is set, loaded on first access.

A dispatch with no gates and no sink never touches them, so first use does not create the
gate modules' and the events' classes (each frozen dataclass is compiled from generated source
when its module loads). The first access to any of them (PEP 562) loads them all, as a dispatch
with any gate or sink needs most of them, binds each as a plain module global and removes the
hook: from then on ``_on_demand.admission`` is an ordinary module attribute, which CPython
looks up as fast as a global (a module with ``__getattr__`` is looked up the slow way).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._fastinit import positional_factory

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._backend import to_thread
    from ._filter import admission
    from ._gates import ToolGates
    from ._ledger import InMemoryRunLedger, next_row_number, row_from_fields
    from ._permission import (
        PermissionDecision,
        PermissionRequest,
        ask_permission,
        decides_by_key,
    )
    from ._weight import LOOP_WEIGHT, heavier_than
    from .events import (
        ToolExecutionBlocked,
        ToolExecutionFailed,
        ToolExecutionFinished,
        ToolExecutionProgress,
        ToolExecutionStarted,
    )

    make_request: Callable[..., PermissionRequest]
    """``PermissionRequest`` from its fields in order (kind, target, action, metadata)."""
    make_started: Callable[..., ToolExecutionStarted]
    """``ToolExecutionStarted`` from its fields in order (session_id, run_id, call, type)."""
    make_finished: Callable[..., ToolExecutionFinished]
    """``ToolExecutionFinished`` from its fields in order (session_id, run_id, call, result,
    duration_seconds, type)."""

__all__ = [
    "LOOP_WEIGHT",
    "InMemoryRunLedger",
    "PermissionDecision",
    "ToolExecutionBlocked",
    "ToolExecutionFailed",
    "ToolExecutionProgress",
    "ToolGates",
    "admission",
    "ask_permission",
    "decides_by_key",
    "heavier_than",
    "make_finished",
    "make_request",
    "make_started",
    "next_row_number",
    "row_from_fields",
    "to_thread",
]

_HOMES: dict[str, str] = {
    "InMemoryRunLedger": "._ledger",
    "LOOP_WEIGHT": "._weight",
    "PermissionDecision": "._permission",
    "ToolExecutionBlocked": ".events",
    "ToolExecutionFailed": ".events",
    "ToolExecutionProgress": ".events",
    "ToolGates": "._gates",
    "admission": "._filter",
    "ask_permission": "._permission",
    "decides_by_key": "._permission",
    "heavier_than": "._weight",
    "next_row_number": "._ledger",
    "row_from_fields": "._ledger",
    "to_thread": "._backend",
}
"""Where each plain name lives."""

_FACTORIES: dict[str, tuple[str, str, str]] = {
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
