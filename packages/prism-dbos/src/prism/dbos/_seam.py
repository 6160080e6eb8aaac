"""The one place prism-dbos reaches into prism-core's pipeline internals.

Durable dispatch records each call's whole pipeline as a step, so it needs the pieces core's
own batch dispatch is built from (run the ``tool_call`` middleware first, then the rest of the
pipeline with a caller-owned reporter). Both distributions ship from one workspace and
prism-dbos pins ``prism-core<0.2``; keeping every such import here makes the coupling visible.
"""

from __future__ import annotations

from prism.core._backend import MoveOnScope, current_backend, move_on_after
from prism.core._dispatch import (
    DispatchOptions,
    block,
    block_aborted,
    error_info_from,
    fail,
    middleware_failed,
    run_call_middleware,
    run_dispatch,
)
from prism.core._reporting import CallReporter

__all__ = [
    "CallReporter",
    "DispatchOptions",
    "MoveOnScope",
    "block",
    "block_aborted",
    "current_backend",
    "error_info_from",
    "fail",
    "middleware_failed",
    "move_on_after",
    "run_call_middleware",
    "run_dispatch",
]
