"""The one place prism-dbos reaches into prism-core's pipeline internals.

Durable dispatch records each call's whole pipeline as a step, so it needs the pieces core's
own batch dispatch is built from (run the ``tool_call`` middleware first, then the rest of the
pipeline with a caller-owned reporter). Both distributions ship from one workspace and
prism-dbos pins ``prism-core<0.2``; keeping every such import here makes the coupling visible.
"""

from __future__ import annotations

from prism.core._abort import NEVER_ABORTED
from prism.core._backend import MoveOnScope, current_backend, move_on_after
from prism.core._batch import MAX_ABORT_GRACE_SECONDS
from prism.core._dispatch import run_call_middleware, run_dispatch
from prism.core._dispatch_options import DispatchOptions
from prism.core._outcomes import (
    aborted_outcome,
    blocked_outcome,
    error_info_from,
    failed_outcome,
)
from prism.core._reporting import CallReporter

__all__ = [
    "MAX_ABORT_GRACE_SECONDS",
    "NEVER_ABORTED",
    "CallReporter",
    "DispatchOptions",
    "MoveOnScope",
    "aborted_outcome",
    "blocked_outcome",
    "current_backend",
    "error_info_from",
    "failed_outcome",
    "move_on_after",
    "run_call_middleware",
    "run_dispatch",
]
