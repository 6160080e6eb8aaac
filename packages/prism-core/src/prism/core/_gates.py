"""``ToolGates``: every gate of a tool call, one frozen value that each entry point takes whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._arguments import DEFAULT_MAX_ARGUMENT_BYTES, MAX_ARGUMENT_BYTES_CAP
from ._filter import ToolFilter
from ._ledger import RunLedger
from ._middleware import MiddlewareRegistry
from ._permission import PermissionPolicy
from ._redact import Redactor
from ._validation import ToolValidator
from .options import check_callable, check_count, check_items

if TYPE_CHECKING:  # annotations only: the options module needs this one, not the reverse
    from ._dispatch_options import DispatchOptions
    from ._registry import ToolLookup
    from .events import EventSink

__all__ = ["NO_GATES", "ToolGates"]


class _Held:
    """A slot outside the dataclass fields: what keyword dispatch last unpacked from these
    gates, ``(registry, emit, DispatchOptions)``, reused while the same registry and sink come
    with them. Being no field, ``==``, ``repr``, copies, pickles and ``asdict`` never see it."""

    __slots__ = ("_dispatch",)
    _dispatch: tuple[ToolLookup, EventSink | None, DispatchOptions]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolGates(_Held):
    """The gates of dispatch and what records each call, checked once when built.

    ``dispatch_tool_call``, batch dispatch, ``ToolPipeline``, ``Agent`` and durable tool sets
    take one ``ToolGates`` as ``gates=``; a gate left ``None`` is not applied. A sequence of
    filters is kept as a tuple.
    """

    middleware: MiddlewareRegistry | None = None
    tool_filter: ToolFilter | Sequence[ToolFilter] | None = None
    permission: PermissionPolicy | None = None
    validator: ToolValidator | None = None
    redactor: Redactor | None = None
    ledger: RunLedger | None = None
    max_argument_bytes: int = DEFAULT_MAX_ARGUMENT_BYTES

    def __post_init__(self) -> None:
        if self.middleware is not None and not isinstance(self.middleware, MiddlewareRegistry):
            got = type(self.middleware).__name__
            raise TypeError(f"ToolGates.middleware must be a MiddlewareRegistry, got {got}")
        object.__setattr__(self, "tool_filter", _filters(self.tool_filter))
        for name, method in (("permission", "check"), ("redactor", "redact"), ("ledger", "append")):
            value = getattr(self, name)
            if value is not None:
                check_callable(f"ToolGates.{name}.{method}", getattr(value, method, None))
        check_callable("ToolGates.validator", self.validator, optional=True)
        check_count(
            "ToolGates.max_argument_bytes", self.max_argument_bytes, cap=MAX_ARGUMENT_BYTES_CAP
        )


def _filters(
    value: ToolFilter | Sequence[ToolFilter] | None,
) -> ToolFilter | tuple[ToolFilter, ...] | None:
    if value is None or isinstance(value, ToolFilter):
        return value
    rule = "a ToolFilter, a sequence of them or None"
    return check_items("ToolGates.tool_filter", value, ToolFilter, rule=rule)


NO_GATES = ToolGates()
"""No gate applied beyond the argument check (what dispatch uses when ``gates`` is left out)."""
