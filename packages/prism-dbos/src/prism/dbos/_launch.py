"""Start DBOS for a durable Prism app: a SQLite file by default, a Postgres URL at scale."""

from __future__ import annotations

from dbos import DBOS

from ._options import DbosBackendOptions

__all__ = ["launch_dbos"]


def launch_dbos(
    *,
    app_name: str,
    database_url: str,
    executor_id: str | None = None,
    app_version: str | None = None,
    listen_queues: bool = True,
) -> DBOS:
    """Configure and launch this process's DBOS (one per process).

    Build every durable agent and tool set first: launch resumes unfinished runs at once.
    ``executor_id`` names this worker; a restarted worker keeps its id to recover its runs.
    ``listen_queues=False`` makes a host that runs agents but executes no queued calls.
    """
    options = DbosBackendOptions(
        app_name=app_name, database_url=database_url, executor_id=executor_id,
        app_version=app_version,
    )  # fmt: skip
    config: dict[str, object] = {
        "name": options.app_name,
        "system_database_url": options.database_url,
        "run_admin_server": False,
    }
    if options.executor_id is not None:
        config["executor_id"] = options.executor_id
    if options.app_version is not None:
        config["application_version"] = options.app_version
    dbos = DBOS(config=config)  # type: ignore[arg-type]
    if not listen_queues:
        DBOS.listen_queues([])
    DBOS.launch()
    return dbos
