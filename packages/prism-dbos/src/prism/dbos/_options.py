"""Options of the durable components: the DBOS backend, approvals and the tool queue."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from prism.core import ToolDefinition, ToolFilter

__all__ = [
    "MAX_APPROVAL_TIMEOUT_SECONDS",
    "ApprovalOptions",
    "DbosBackendOptions",
    "QueueOptions",
]

MAX_APPROVAL_TIMEOUT_SECONDS = 365 * 86_400.0
_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
_URL_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")


def _check_name(field: str, value: object) -> None:
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{field} must match {_NAME.pattern}, got {value!r}")


def _check_limit(field: str, value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
        raise ValueError(f"{field} must be None or an int in [1, 10000], got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class DbosBackendOptions:
    """Where DBOS keeps its history: a SQLite file (embedded) or a Postgres URL (shared).

    ``executor_id`` names this process among the workers of one database; a restarted
    worker that keeps its id recovers the workflows it was running. Workers only run queued
    calls of their own ``app_version`` (by default DBOS derives it from the registered
    workflow code): set it when hosts and workers load different code.
    """

    app_name: str
    database_url: str
    executor_id: str | None = None
    app_version: str | None = None

    def __post_init__(self) -> None:
        _check_name("app_name", self.app_name)
        url = self.database_url
        if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
            schemes = ", ".join(_URL_SCHEMES)
            raise ValueError(f"database_url must start with one of {schemes}, got {url!r}")
        if self.executor_id is not None:
            _check_name("executor_id", self.executor_id)
        if self.app_version is not None:
            _check_name("app_version", self.app_version)


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalOptions:
    """Which calls wait for a human decision, and for how long (a durable timeout).

    A call needs approval when ``tools`` admits its name, or when ``side_effects`` is set and
    its tool is neither ``read_only`` nor ``idempotent``. No decision in time blocks the call.
    """

    tools: ToolFilter | None = None
    side_effects: bool = False
    timeout_seconds: float = 86_400.0

    def __post_init__(self) -> None:
        if self.tools is not None and not isinstance(self.tools, ToolFilter):
            raise ValueError(f"tools must be a ToolFilter or None, got {self.tools!r}")
        if not isinstance(self.side_effects, bool):
            raise ValueError(f"side_effects must be a bool, got {self.side_effects!r}")
        if self.tools is None and not self.side_effects:
            raise ValueError("tools or side_effects must say which calls need approval")
        t = self.timeout_seconds
        if (
            isinstance(t, bool)
            or not isinstance(t, int | float)
            or not math.isfinite(t)
            or not 0 < t <= MAX_APPROVAL_TIMEOUT_SECONDS
        ):
            raise ValueError(
                f"timeout_seconds must be in (0, {MAX_APPROVAL_TIMEOUT_SECONDS:g}], got {t!r}"
            )

    def needs_approval(self, name: str, tool: ToolDefinition | None) -> bool:
        """Whether a call of ``name`` (resolving to ``tool``) waits for a decision."""
        if self.tools is not None and self.tools.admits(name):
            return True
        if self.side_effects and tool is not None:
            return not (tool.read_only or tool.idempotent)
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueOptions:
    """A DBOS queue for tool calls: workers sharing the database execute them.

    ``global_concurrency`` bounds calls in flight across all workers, ``worker_concurrency``
    those in one worker process.
    """

    name: str = "prism-tools"
    global_concurrency: int | None = None
    worker_concurrency: int | None = None
    polling_interval_seconds: float = 1.0

    def __post_init__(self) -> None:
        _check_name("name", self.name)
        _check_limit("global_concurrency", self.global_concurrency)
        _check_limit("worker_concurrency", self.worker_concurrency)
        p = self.polling_interval_seconds
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.01 <= p <= 60:
            raise ValueError(f"polling_interval_seconds must be in [0.01, 60], got {p!r}")
