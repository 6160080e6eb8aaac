"""Row checks: one async function per threat row, registered by id."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar, final

from prism.core import PrismError
from prism.core.options import check_seconds

from ._matrix import row_by_id

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

__all__ = [
    "DEFAULT_ROW_TIMEOUT_SECONDS",
    "RowCheck",
    "RowSkippedError",
    "conformance_row",
    "load_checks",
    "registered_checks",
    "require",
    "row_timeout_seconds",
]

T = TypeVar("T")

RowCheck = Callable[["ConformanceSubjects"], Awaitable[None]]

DEFAULT_ROW_TIMEOUT_SECONDS = 60.0
"""Outer deadline of one row on one backend, unless the row asks for another."""
MAX_ROW_TIMEOUT_SECONDS = 3600.0

_CHECKS: dict[str, RowCheck] = {}
_TIMEOUTS: dict[str, float] = {}

_ROW_MODULES: dict[str, str] = {
    "_rows_core": "prism-core",
    "_rows_core_batch": "prism-core",
    "_rows_core_abort": "prism-core",
    "_rows_jsonschema": "prism-jsonschema",
    "_rows_mcp": "prism-mcp",
    "_rows_coding_tools": "prism-coding-tools",
    "_rows_shell": "prism-coding-tools",
    "_rows_coding_security": "prism-coding-security",
    "_rows_sandbox": "prism-coding-security",
    "_rows_sandbox_later": "prism-coding-security",
    "_rows_sandbox_leaks": "prism-coding-security",
    "_rows_dbos": "prism-dbos",
}


@final
class RowSkippedError(PrismError):
    """A check cannot run here: its subject or a host capability (a sandbox, ``/proc``, a
    backend) is missing. An error of the environment, so the runner reports the row skipped."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def conformance_row(
    row_id: str, *, timeout_seconds: float | None = None
) -> Callable[[RowCheck], RowCheck]:
    """Register ``fn`` as the check for threat row ``row_id`` (which must exist).

    ``timeout_seconds`` replaces the default outer deadline for this row (a slow row such
    as a 200 MB flood may need more); it must be in ``(0, 3600]``.
    """
    row = row_by_id(row_id)
    if timeout_seconds is not None:
        _check_timeout("timeout_seconds", timeout_seconds)

    def register(fn: RowCheck) -> RowCheck:
        known = _CHECKS.get(row.id)
        if known is not None and _name(known) != _name(fn):
            # The same function again is a row module imported anew (e.g. after pytester
            # restored sys.modules): it replaces itself. Another function is a conflict.
            raise ValueError(f"threat row {row.id}: already has a check")
        _CHECKS[row.id] = fn
        if timeout_seconds is not None:
            _TIMEOUTS[row.id] = float(timeout_seconds)
        return fn

    return register


def _name(fn: RowCheck) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"


def require(value: T | None, what: str) -> T:
    """Return ``value`` or skip the row because ``what`` is not available.

    When the subject is missing because its distribution is not installed, the runner reports
    the row as ``<distribution> is not installed`` instead of this message.
    """
    if value is None:
        raise RowSkippedError(f"{what} is not available (its subject is None)")
    return value


def registered_checks() -> dict[str, RowCheck]:
    """All row checks, importing the row modules on first use (import errors propagate)."""
    for name in _ROW_MODULES:
        importlib.import_module(f"{__package__}.{name}")
    return dict(_CHECKS)


def load_checks() -> tuple[dict[str, RowCheck], dict[str, str]]:
    """All row checks, plus ``{package: error}`` for row modules that failed to import.

    A runner uses this so one broken row module fails that package's rows instead of
    crashing the whole run.
    """
    errors: dict[str, str] = {}
    for name, package in _ROW_MODULES.items():
        try:
            importlib.import_module(f"{__package__}.{name}")
        except Exception as exc:
            errors[package] = f"row module {name} failed to import: {type(exc).__name__}: {exc}"
    return dict(_CHECKS), errors


def row_timeout_seconds(row_id: str) -> float:
    """The outer deadline of row ``row_id`` (its own, or the default)."""
    return _TIMEOUTS.get(row_by_id(row_id).id, DEFAULT_ROW_TIMEOUT_SECONDS)


def _check_timeout(name: str, value: object) -> float:
    """Seconds in ``(0, MAX_ROW_TIMEOUT_SECONDS]``: ``TypeError`` if not a number, else
    ``ValueError``, in the options message format."""
    return check_seconds(name, value, cap=MAX_ROW_TIMEOUT_SECONDS)
