"""Options of the durable components: the DBOS backend, approvals and the tool queue."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import final

from prism.core import ToolDefinition, ToolFilter
from prism.core.options import check_count, check_flag, check_instance, check_match, check_seconds

__all__ = [
    "MAX_APPROVAL_TIMEOUT_SECONDS",
    "ApprovalOptions",
    "DbosBackendOptions",
    "QueueOptions",
]

MAX_APPROVAL_TIMEOUT_SECONDS = 365 * 86_400.0
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,100}")
"""What a name DBOS stores (app, executor, version, queue, tool set, session, run) may be."""
_MAX_QUEUE_CONCURRENCY = 10_000
_URL_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DbosBackendOptions:
    """Where DBOS keeps its history: a SQLite file (embedded) or a Postgres URL (shared).

    ``executor_id`` names this process among the workers of one database; a restarted
    worker that keeps its id recovers the workflows it was running. Two live processes must
    never share one (the second would recover the first's live runs). Workers only run queued
    calls of their own ``app_version`` (by default DBOS derives it from the registered
    workflow code): set it when hosts and workers load different code.
    ``notification_poll_seconds`` (0.001 to 60; default 1, DBOS's own): on SQLite nothing wakes
    a waiting run, so this process's DBOS looks for what its runs wait on (an approval's
    decision, a queued call's result under a deadline) once per poll: up to a poll late.
    """

    app_name: str
    database_url: str
    executor_id: str | None = None
    app_version: str | None = None
    notification_poll_seconds: float = 1.0

    def __post_init__(self) -> None:
        check_match("DbosBackendOptions.app_name", self.app_name, NAME_PATTERN)
        url = self.database_url
        if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
            schemes = ", ".join(_URL_SCHEMES)
            error = ValueError if isinstance(url, str) else TypeError
            raise error(
                f"DbosBackendOptions.database_url must be a URL starting with one of {schemes}, "
                f"got {url!r:.200}"
            )
        if self.executor_id is not None:
            check_match("DbosBackendOptions.executor_id", self.executor_id, NAME_PATTERN)
        if self.app_version is not None:
            check_match("DbosBackendOptions.app_version", self.app_version, NAME_PATTERN)
        check_seconds(
            "DbosBackendOptions.notification_poll_seconds",
            self.notification_poll_seconds,
            cap=60.0,
            minimum=0.001,
        )


@final
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
        check_instance("ApprovalOptions.tools", self.tools, ToolFilter, optional=True)
        check_flag("ApprovalOptions.side_effects", self.side_effects)
        if self.tools is None and not self.side_effects:
            raise ValueError(
                "ApprovalOptions.side_effects must be True when tools is None "
                "(one of them must say which calls need approval), got False"
            )
        check_seconds(
            "ApprovalOptions.timeout_seconds",
            self.timeout_seconds,
            cap=MAX_APPROVAL_TIMEOUT_SECONDS,
        )

    def needs_approval(self, name: str, tool: ToolDefinition | None) -> bool:
        """Whether a call of ``name`` (resolving to ``tool``) waits for a decision."""
        if self.tools is not None and self.tools.admits(name):
            return True
        if self.side_effects and tool is not None:
            return not (tool.read_only or tool.idempotent)
        return False


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class QueueOptions:
    """A DBOS queue for tool calls: workers sharing the database execute them.

    ``global_concurrency`` bounds calls in flight across all workers, ``worker_concurrency``
    those in one worker process. ``result_deadline_seconds`` is how long a turn waits for one
    queued call's result (queueing included, durable across restarts): past it the call's
    result is ``outcome_unknown`` (a lost worker never stalls the run). ``None`` waits without
    a deadline (two fewer writes per call; a lost worker's calls then wait for its restart).
    ``polling_interval_seconds`` is how often workers look for queued calls and, without a
    deadline, how often a turn checks a queued call's result.
    """

    name: str = "prism-tools"
    global_concurrency: int | None = None
    worker_concurrency: int | None = None
    polling_interval_seconds: float = 1.0
    result_deadline_seconds: float | None = 3600.0

    def __post_init__(self) -> None:
        check_match("QueueOptions.name", self.name, NAME_PATTERN)
        for field in ("global_concurrency", "worker_concurrency"):
            limit = getattr(self, field)
            if limit is not None:
                check_count(f"QueueOptions.{field}", limit, cap=_MAX_QUEUE_CONCURRENCY)
        check_seconds(
            "QueueOptions.polling_interval_seconds",
            self.polling_interval_seconds,
            cap=60.0,
            minimum=0.01,
        )
        if self.result_deadline_seconds is not None:
            check_seconds(
                "QueueOptions.result_deadline_seconds",
                self.result_deadline_seconds,
                cap=MAX_APPROVAL_TIMEOUT_SECONDS,
            )
