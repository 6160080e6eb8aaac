"""Entry checks: durable dispatch needs asyncio (DBOS is asyncio-based) and a workflow."""

from __future__ import annotations

from typing import final

from dbos import DBOS
from prism.core import PrismError
from prism.core.lowlevel import current_backend

__all__ = ["DurableBackendError", "require_asyncio", "require_workflow"]


@final
class DurableBackendError(PrismError, RuntimeError):
    """Durable execution was entered where it cannot run (trio, or outside a workflow)."""


def require_asyncio(entry: str) -> None:
    """Refuse trio at entry: DBOS drives its workflows and steps on asyncio."""
    if current_backend() != "asyncio":
        raise DurableBackendError(
            f"durable entry prism.dbos.{entry}: runs on asyncio only (DBOS is asyncio-based); "
            "it was called from trio: run the durable agent under asyncio.run"
        )


def require_workflow(entry: str) -> str:
    """The current DBOS workflow id; refuses calls outside a workflow (or on trio)."""
    require_asyncio(entry)
    workflow_id = DBOS.workflow_id
    if workflow_id is None:
        raise DurableBackendError(
            f"durable entry prism.dbos.{entry}: must run inside a DBOS workflow "
            "(see DurableAgent.run)"
        )
    return workflow_id
