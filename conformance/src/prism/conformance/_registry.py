"""Row checks: one async function per threat row, registered by id."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from ._matrix import row_by_id

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

__all__ = ["RowCheck", "RowSkipped", "conformance_row", "registered_checks", "require"]

T = TypeVar("T")

RowCheck = Callable[["ConformanceSubjects"], Awaitable[None]]

_CHECKS: dict[str, RowCheck] = {}

_ROW_MODULES = (
    "_rows_core",
    "_rows_jsonschema",
    "_rows_mcp",
    "_rows_coding_tools",
    "_rows_coding_security",
)


class RowSkipped(Exception):
    """Raised by a check when its subject is not available; the row is reported skipped."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def conformance_row(row_id: str) -> Callable[[RowCheck], RowCheck]:
    """Register ``fn`` as the check for threat row ``row_id`` (which must exist)."""
    row = row_by_id(row_id)

    def register(fn: RowCheck) -> RowCheck:
        if row.id in _CHECKS:
            raise ValueError(f"threat row {row.id} already has a check")
        _CHECKS[row.id] = fn
        return fn

    return register


def require(value: T | None, what: str) -> T:
    """Return ``value`` or skip the row because ``what`` is not available."""
    if value is None:
        raise RowSkipped(f"{what} is not available (package not installed or subject not given)")
    return value


def registered_checks() -> dict[str, RowCheck]:
    """All row checks, importing the row modules on first use."""
    for name in _ROW_MODULES:
        importlib.import_module(f"{__package__}.{name}")
    return dict(_CHECKS)
