"""What dispatch takes besides the call: the gate settings, named and typed in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Required, TypedDict

from . import _on_demand
from ._arguments import DEFAULT_MAX_ARGUMENT_BYTES
from ._registry import ToolLookup
from ._reporting import CallReporter
from ._types import ToolExecutionContext

if TYPE_CHECKING:  # names for annotations only: a dispatch without gates loads neither module
    from ._gates import ToolGates
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
        "context", "emit", "ledger", "max_argument_bytes", "middleware", "permission",
        "redactor", "registry", "tool_filter", "validator",
    )  # fmt: skip

    def __init__(self, settings: DispatchSettings) -> None:
        if not _NAMES.issuperset(settings):
            unknown = ", ".join(sorted(settings.keys() - _NAMES))
            raise TypeError(
                f"dispatch.settings must be known keywords, got unknown settings: {unknown}"
            )
        if "registry" not in settings:
            raise TypeError(
                "dispatch.registry must be a ToolLookup (see ToolRegistry), got no registry="
            )
        registry = settings["registry"]
        if not callable(getattr(registry, "get", None)):
            raise TypeError(
                f"dispatch.registry must be a ToolLookup with get(name), got {registry!r:.200}"
            )
        self.registry = registry
        self.context = settings.get("context")
        self.emit = settings.get("emit")
        gates = settings.get("gates")
        if gates is not None:
            gates_type = _on_demand.ToolGates  # loaded with the gates themselves
            if type(gates) is not gates_type and not isinstance(gates, gates_type):
                raise TypeError(f"dispatch.gates must be a ToolGates, got {gates!r:.200}")
            self.tool_filter = gates.tool_filter
            self.middleware = gates.middleware
            self.permission = gates.permission
            self.validator = gates.validator
            self.ledger = gates.ledger
            self.redactor = gates.redactor
            self.max_argument_bytes = gates.max_argument_bytes
        else:  # what ``ToolGates()`` holds, without loading the gate modules
            self.tool_filter = self.middleware = self.permission = self.validator = None
            self.ledger = self.redactor = None
            self.max_argument_bytes = DEFAULT_MAX_ARGUMENT_BYTES

    def reporter(self, context: ToolExecutionContext | None) -> CallReporter:
        """A fresh reporter for one call made under ``context``."""
        session_id = context.session_id if context is not None else ""
        run_id = context.run_id if context is not None else ""
        return CallReporter(session_id, run_id, self.emit, self.ledger, self.redactor)
