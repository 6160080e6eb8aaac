"""What dispatch takes besides the call: the gate settings, named and typed in one place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Required, TypedDict

from ._arguments import DEFAULT_MAX_ARGUMENT_BYTES, MAX_ARGUMENT_BYTES_CAP
from ._filter import ToolFilter
from ._ledger import RunLedger
from ._middleware import MiddlewareRegistry
from ._permission import PermissionPolicy
from ._registry import ToolLookup
from ._reporting import CallReporter
from ._types import ToolExecutionContext
from .events import EventSink
from .options import check_count

if TYPE_CHECKING:  # names for annotations only: first use loads neither module
    from ._redact import Redactor
    from ._validation import ToolValidator

__all__ = ["DispatchOptions", "DispatchSettings"]


class DispatchSettings(TypedDict, total=False):
    """The keyword arguments of ``dispatch_tool_call`` and ``dispatch_tool_calls_in_order``.

    Only ``registry`` is required; a gate left out is not applied.
    """

    registry: Required[ToolLookup]
    context: ToolExecutionContext | None
    tool_filter: ToolFilter | Sequence[ToolFilter] | None
    middleware: MiddlewareRegistry | None
    permission: PermissionPolicy | None
    validate: ToolValidator | None
    emit: EventSink | None
    ledger: RunLedger | None
    redactor: Redactor | None
    max_argument_bytes: int


_NAMES = frozenset(DispatchSettings.__annotations__)


class DispatchOptions:
    """``DispatchSettings`` checked once, with their defaults filled in.

    A plain slotted class rather than a frozen dataclass: it is built on every dispatch.
    """

    __slots__ = (
        "context", "emit", "ledger", "max_argument_bytes", "middleware", "permission",
        "redactor", "registry", "tool_filter", "validate",
    )  # fmt: skip

    def __init__(self, settings: DispatchSettings) -> None:
        if not _NAMES.issuperset(settings):
            unknown = ", ".join(sorted(settings.keys() - _NAMES))
            raise TypeError(f"dispatch got unknown settings: {unknown}")
        if "registry" not in settings:
            raise TypeError("dispatch needs registry= (a ToolLookup; see create_tool_registry)")
        registry = settings["registry"]
        if not callable(getattr(registry, "get", None)):
            raise TypeError("registry must have a get(name) method (see create_tool_registry)")
        max_bytes = DEFAULT_MAX_ARGUMENT_BYTES
        if "max_argument_bytes" in settings:  # the default is in range; a given value is checked
            max_bytes = check_count(
                "dispatch.max_argument_bytes",
                settings["max_argument_bytes"],
                cap=MAX_ARGUMENT_BYTES_CAP,
            )
        self.registry = registry
        self.context = settings.get("context")
        self.tool_filter = settings.get("tool_filter")
        self.middleware = settings.get("middleware")
        self.permission = settings.get("permission")
        self.validate = settings.get("validate")
        self.emit = settings.get("emit")
        self.ledger = settings.get("ledger")
        self.redactor = settings.get("redactor")
        self.max_argument_bytes = max_bytes

    def reporter(self, context: ToolExecutionContext | None) -> CallReporter:
        """A fresh reporter for one call made under ``context``."""
        session_id = context.session_id if context is not None else ""
        run_id = context.run_id if context is not None else ""
        return CallReporter(session_id, run_id, self.emit, self.ledger, self.redactor)
