"""A named set of tools and dispatch gates that every process of a durable app rebuilds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar, final

from prism.core import (
    AbortSignal,
    DispatchSettings,
    PrismError,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
)
from prism.core.events import EventSink
from prism.core.lowlevel import MAX_ABORT_GRACE_SECONDS, CallUnit, prepare_call
from prism.core.options import (
    check_callable,
    check_count,
    check_instance,
    check_match,
    check_seconds,
)

from ._ledger import KeyedLedger
from ._options import NAME_PATTERN, ApprovalOptions, QueueOptions

__all__ = ["DurableToolset", "UnknownToolsetError", "register_toolset", "toolset_named"]

_MAX_CONCURRENCY = 64
_NO_GATES = ToolGates()
T = TypeVar("T")


class NameTable(Generic[T]):
    """What this process registered by name (the latest registration wins), thread-safe.

    Recovery and queue workers find agents and tool sets by the name recorded in a run.
    """

    def __init__(self, missing: Callable[[str], Exception]) -> None:
        self._items: dict[str, T] = {}
        self._lock = threading.Lock()
        self._missing = missing

    def put(self, name: str, item: T) -> T:
        """Register ``item`` as ``name``."""
        with self._lock:
            self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """The item registered as ``name``; the ``missing`` error names what is absent."""
        with self._lock:
            found = self._items.get(name)
        if found is None:
            raise self._missing(name)
        return found


@final
class UnknownToolsetError(PrismError, LookupError):
    """A recorded run names a tool set this process did not register."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableToolset:
    """Tools and gates of durable dispatch, found by ``name`` in whichever process runs a call.

    Recovery and queue workers run calls by this name, so every process of the app must build
    the same tool set (same name, same tools) before ``DBOS.launch()``.
    """

    name: str
    tools: ToolRegistry
    gates: ToolGates = _NO_GATES
    emit: EventSink | None = None
    approval: ApprovalOptions | None = None
    queue: QueueOptions | None = None
    tool_concurrency: int = 1
    abort_grace_seconds: float = 5.0
    _keyed: ToolGates = field(init=False, repr=False, compare=False)
    """``gates`` with the ledger giving each durable call's rows their deterministic ids."""

    def __post_init__(self) -> None:
        check_match("DurableToolset.name", self.name, NAME_PATTERN)
        check_instance("DurableToolset.tools", self.tools, ToolRegistry)
        check_count("DurableToolset.tool_concurrency", self.tool_concurrency, cap=_MAX_CONCURRENCY)
        check_seconds(
            "DurableToolset.abort_grace_seconds",
            self.abort_grace_seconds,
            cap=MAX_ABORT_GRACE_SECONDS,
        )
        check_instance("DurableToolset.gates", self.gates, ToolGates)
        check_callable("DurableToolset.emit", self.emit, optional=True)
        ledger = self.gates.ledger
        keyed = self.gates if ledger is None else replace(self.gates, ledger=KeyedLedger(ledger))
        object.__setattr__(self, "_keyed", keyed)
        check_instance("DurableToolset.approval", self.approval, ApprovalOptions, optional=True)
        check_instance("DurableToolset.queue", self.queue, QueueOptions, optional=True)

    def tool(self, name: str) -> ToolDefinition | None:
        """The tool ``name`` resolves to, if any."""
        return self.tools.get(name)

    def settings(self, context: ToolExecutionContext) -> DispatchSettings:
        """Core's dispatch settings (the gates) for calls under ``context``."""
        return {"registry": self.tools, "context": context, "gates": self._keyed, "emit": self.emit}

    def unit(self, call: ToolCall, context: ToolExecutionContext) -> CallUnit:
        """``call`` (after its ``tool_call`` middleware) ready to run, fail or be refused."""
        return prepare_call(call, **self.settings(context))

    def context(
        self, session_id: str, run_id: str, call_id: str, signal: AbortSignal
    ) -> ToolExecutionContext:
        """The handler context of one call."""
        return ToolExecutionContext(
            session_id=session_id, run_id=run_id, tool_call_id=call_id, signal=signal
        )


def register_toolset(toolset: DurableToolset) -> DurableToolset:
    """Make ``toolset`` findable by name in this process (the latest registration wins)."""
    if not isinstance(toolset, DurableToolset):
        raise TypeError(f"register_toolset.toolset must be a DurableToolset, got {toolset!r:.200}")
    return _TOOLSETS.put(toolset.name, toolset)


def toolset_named(name: str) -> DurableToolset:
    """The tool set registered as ``name``; ``UnknownToolsetError`` names what is missing."""
    return _TOOLSETS.get(name)


def _unknown_toolset(name: str) -> UnknownToolsetError:
    return UnknownToolsetError(
        f"no durable tool set named {name!r} in this process; build the same agent or "
        "DurableToolset (same name) before DBOS.launch() in every process of the app"
    )


_TOOLSETS = NameTable[DurableToolset](_unknown_toolset)
