"""Start DBOS for a durable Prism app: a SQLite file by default, a Postgres URL at scale."""

from __future__ import annotations

import os

from dbos import DBOS

from ._options import DbosBackendOptions

__all__ = ["EXECUTOR_ID_ENV", "default_executor_id", "launch_dbos"]

EXECUTOR_ID_ENV = "DBOS__VMID"
"""DBOS's own variable naming a worker; when set it names this process (a stable id)."""


def default_executor_id() -> str:
    """An executor id for a process the operator did not name: ``$DBOS__VMID`` if set, else
    one unique to this process (so its start-up recovery never takes another's live runs)."""
    named = os.environ.get(EXECUTOR_ID_ENV)
    if named:
        return named
    return f"prism-{os.getpid()}-{os.urandom(6).hex()}"


def launch_dbos(
    *,
    app_name: str,
    database_url: str,
    executor_id: str | None = None,
    app_version: str | None = None,
    listen_queues: bool = True,
    notification_poll_seconds: float = 1.0,
) -> DBOS:
    """Configure and launch this process's DBOS (one per process).

    Build every durable agent and tool set first: launch resumes the unfinished runs of
    ``executor_id`` at once. Name it (``executor_id="worker-a"``) to make it stable across a
    restart, so the restarted process recovers its runs; left out, the id is unique to this
    process (see ``default_executor_id``) and launch recovers nothing. ``listen_queues=False``
    makes a host that runs agents but executes no queued calls. ``notification_poll_seconds``:
    how often this process polls a SQLite database for what its runs wait on (unused on
    Postgres, which notifies; see ``DbosBackendOptions``).
    """
    if executor_id is None:
        executor_id = default_executor_id()
    options = DbosBackendOptions(
        app_name=app_name, database_url=database_url, executor_id=executor_id,
        app_version=app_version, notification_poll_seconds=notification_poll_seconds,
    )  # fmt: skip
    config: dict[str, object] = {
        "name": options.app_name,
        "system_database_url": options.database_url,
        "run_admin_server": False,
        "executor_id": options.executor_id,
        "notification_listener_polling_interval_sec": options.notification_poll_seconds,
    }
    if options.app_version is not None:
        config["application_version"] = options.app_version
    dbos = DBOS(config=config)  # type: ignore[arg-type]
    if not listen_queues:
        DBOS.listen_queues([])
    DBOS.launch()
    return dbos
