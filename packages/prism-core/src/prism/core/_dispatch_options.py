"""What dispatch takes besides the call: the gate settings, named and typed in one place."""

from __future__ import annotations

from types import MethodType
from typing import TYPE_CHECKING, Required, TypedDict

from . import _on_demand
from ._arguments import DEFAULT_MAX_ARGUMENT_BYTES
from ._registry import ToolLookup
from ._reporting import CallReporter
from ._types import ToolExecutionContext
from .options import check_callable

if TYPE_CHECKING:  # names for annotations only: a dispatch without gates loads neither module
    from ._gates import ToolGates
    from .events import EventSink

__all__ = ["DispatchOptions", "DispatchSettings", "check_context"]


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
    """``DispatchSettings`` checked, with the gates unpacked for the pipeline; the call's
    ``context`` stays in the settings (it changes per call, these do not).

    A plain slotted class rather than a frozen dataclass: it is built on every dispatch that
    does not find it held (``of``).
    """

    __slots__ = (
        "admits", "emit", "ledger", "max_argument_bytes", "middleware", "permission",
        "permission_by_key", "redactor", "registry", "validator",
    )  # fmt: skip

    @classmethod
    def of(cls, settings: DispatchSettings) -> DispatchOptions:
        """``settings`` checked and unpacked. The options unpacked from one ``ToolGates`` are
        held on it and reused while the same registry and event sink come with it, as a
        ``ToolPipeline`` holds them: a host passing keyword settings pays the unpacking once."""
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
        context = settings.get("context")
        if context is not None and type(context) is not ToolExecutionContext:
            check_context(context)
        gates = settings.get("gates")
        emit = settings.get("emit")
        if gates is None:
            options = cls.__new__(cls)
            options._unpack_no_gates(_checked(registry, emit), emit)
            return options
        gates_type = _on_demand.ToolGates  # loaded with the gates themselves
        if type(gates) is not gates_type and not isinstance(gates, gates_type):
            raise TypeError(f"dispatch.gates must be a ToolGates, got {gates!r:.200}")
        try:
            last = gates._dispatch
        except AttributeError:  # never dispatched through, or a copy (copies leave it behind)
            last = None
        if (
            last is not None
            and last[0] is registry
            and _same_sink(last[1], emit)
            and callable(getattr(registry, "get", None))  # as checked anew on fresh gates
        ):
            held: DispatchOptions = last[2]
            return held
        options = cls.held(registry, gates, emit)
        object.__setattr__(gates, "_dispatch", (registry, emit, options))
        return options

    @classmethod
    def held(
        cls, registry: ToolLookup, gates: ToolGates, emit: EventSink | None
    ) -> DispatchOptions:
        """Options a holder checked once (``ToolPipeline``: ``gates`` and ``emit``), for every
        call it makes without a settings dict; only ``registry`` is checked here."""
        options = cls.__new__(cls)
        options._unpack(_checked(registry, emit), gates, emit)
        return options

    def _unpack(self, registry: ToolLookup, gates: ToolGates, emit: EventSink | None) -> None:
        self.registry = registry
        self.emit = emit
        self.admits = _on_demand.admission(gates.tool_filter)
        self.middleware = gates.middleware
        self.permission = gates.permission
        self.permission_by_key = (
            None if gates.permission is None else _on_demand.decides_by_key(gates.permission)
        )
        self.validator = gates.validator
        self.ledger = gates.ledger
        self.redactor = gates.redactor
        self.max_argument_bytes = gates.max_argument_bytes

    def _unpack_no_gates(self, registry: ToolLookup, emit: EventSink | None) -> None:
        """What ``_unpack`` makes of ``ToolGates()``, without loading the gate modules."""
        self.registry = registry
        self.emit = emit
        self.admits = self.middleware = self.permission = self.permission_by_key = None
        self.validator = self.ledger = self.redactor = None
        self.max_argument_bytes = DEFAULT_MAX_ARGUMENT_BYTES

    def reporter(self, context: ToolExecutionContext | None) -> CallReporter:
        """A fresh reporter for one call made under ``context``."""
        session_id = context.session_id if context is not None else ""
        run_id = context.run_id if context is not None else ""
        return CallReporter(session_id, run_id, self.emit, self.ledger, self.redactor)


def _checked(registry: ToolLookup, emit: EventSink | None) -> ToolLookup:
    if not callable(getattr(registry, "get", None)):
        raise TypeError(
            f"dispatch.registry must be a ToolLookup with get(name), got {registry!r:.200}"
        )
    check_callable("dispatch.emit", emit, optional=True)
    return registry


def check_context(context: object) -> None:
    """Refuse a ``context`` that is not a ``ToolExecutionContext`` (or ``None``), by name."""
    if context is not None and not isinstance(context, ToolExecutionContext):
        raise TypeError(
            f"dispatch.context must be a ToolExecutionContext or None, got {context!r:.200}"
        )


def _same_sink(held: EventSink | None, emit: EventSink | None) -> bool:
    """Whether ``emit`` is the held sink: the same object, or the same object's same bound
    method (``sink.append`` is a new object each time it is read). Never the sink's ``==``: two
    equal sinks are still two places events must go."""
    if held is emit:
        return True
    return (
        type(emit) is MethodType
        and type(held) is MethodType
        and emit.__self__ is held.__self__
        and emit.__func__ is held.__func__
    )
