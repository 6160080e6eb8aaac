"""Start DBOS for a durable Prism app: a SQLite file by default, a Postgres URL at scale."""

from __future__ import annotations

from dbos import DBOS

from ._options import DbosBackendOptions

__all__ = ["launch_dbos"]


def launch_dbos(*, app_name: str, database_url: str, executor_id: str | None = None) -> DBOS:
    """Configure and launch this process's DBOS (one per process).

    Build every durable agent and tool set first: launch resumes unfinished runs at once.
    ``executor_id`` names this worker; a restarted worker keeps its id to recover its runs.
    """
    options = DbosBackendOptions(
        app_name=app_name, database_url=database_url, executor_id=executor_id
    )
    config: dict[str, object] = {
        "name": options.app_name,
        "system_database_url": options.database_url,
        "run_admin_server": False,
    }
    if options.executor_id is not None:
        config["executor_id"] = options.executor_id
    dbos = DBOS(config=config)  # type: ignore[arg-type]
    DBOS.launch()
    return dbos
