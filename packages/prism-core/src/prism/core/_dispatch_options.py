"""What dispatch takes besides the call: the gate settings, named and typed in one place."""

from __future__ import annotations

from typing import Required, TypedDict

from ._filter import admission
from ._gates import NO_GATES, ToolGates
from ._permission import decides_by_key
from ._registry import ToolLookup
from ._reporting import CallReporter
from ._types import ToolExecutionContext
from .events import EventSink

__all__ = ["DispatchOptions", "DispatchSettings"]


class DispatchSettings(TypedDict, total=False):
    """The keyword arguments of ``dispatch_tool_call`` and ``dispatch_tool_calls_in_order``.

    Only ``registry`` is required; ``gates`` left out applies none (``ToolGates()``).
    """

    registry: Required[ToolLookup]
    context: ToolExecutionContext | None
    gates: ToolGates | None
    emit: EventSink | None


_NAMES = frozenset(DispatchSettings.__annotations__)


class DispatchOptions:
    """``DispatchSettings`` checked once, with the gates unpacked for the pipeline.

    A plain slotted class rather than a frozen dataclass: it is built on every dispatch.
    """

    __slots__ = (
        "admits", "context", "emit", "ledger", "max_argument_bytes", "middleware", "permission",
        "permission_by_key", "redactor", "registry", "validator",
    )  # fmt: skip

    def __init__(self, settings: DispatchSettings) -> None:
        if not _NAMES.issuperset(settings):
            unknown = ", ".join(sorted(settings.keys() - _NAMES))
            raise TypeError(f"dispatch got unknown settings: {unknown}")
        if "registry" not in settings:
            raise TypeError("dispatch needs registry= (a ToolLookup; see ToolRegistry)")
        registry = settings["registry"]
        if not callable(getattr(registry, "get", None)):
            raise TypeError("registry must have a get(name) method (see ToolRegistry)")
        gates = settings.get("gates")
        if gates is None:
            gates = NO_GATES
        if type(gates) is not ToolGates and not isinstance(gates, ToolGates):
            raise TypeError(f"dispatch gates must be a ToolGates, got {type(gates).__name__}")
        self._unpack(registry, gates, settings.get("context"), settings.get("emit"))

    @classmethod
    def held(
        cls, registry: ToolLookup, gates: ToolGates, emit: EventSink | None
    ) -> DispatchOptions:
        """Options a holder checked once (``ToolPipeline``: ``gates`` and ``emit``), for every
        call it makes without a settings dict; only ``registry`` is checked here."""
        if not callable(getattr(registry, "get", None)):
            raise TypeError("registry must have a get(name) method (see ToolRegistry)")
        options = cls.__new__(cls)
        options._unpack(registry, gates, None, emit)
        return options

    def _unpack(
        self,
        registry: ToolLookup,
        gates: ToolGates,
        context: ToolExecutionContext | None,
        emit: EventSink | None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.emit = emit
        self.admits = admission(gates.tool_filter)
        self.middleware = gates.middleware
        self.permission = gates.permission
        self.permission_by_key = (
            None if gates.permission is None else decides_by_key(gates.permission)
        )
        self.validator = gates.validator
        self.ledger = gates.ledger
        self.redactor = gates.redactor
        self.max_argument_bytes = gates.max_argument_bytes

    def reporter(self, context: ToolExecutionContext | None) -> CallReporter:
        """A fresh reporter for one call made under ``context``."""
        session_id = context.session_id if context is not None else ""
        run_id = context.run_id if context is not None else ""
        return CallReporter(session_id, run_id, self.emit, self.ledger, self.redactor)
