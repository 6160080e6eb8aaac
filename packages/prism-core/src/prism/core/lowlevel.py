"""Low-level hooks for integrations that run Prism's pipeline somewhere special.

Like ``trio.lowlevel``: stable and documented, but meant for integration authors (a durable
backend, a tracer), not for hosts. ``StepHook`` wraps every call of a batch in a unit of the
integration's choosing; ``dispatch_tool_calls_in_order(step_hook=...)`` and
``RunOptions(step_hook=...)`` take one. ``prepare_call`` makes such a unit for one call outside
a batch (a queue worker running a call it was sent). See docs/core.md, "prism.core.lowlevel".
"""

from __future__ import annotations

from ._abort import NEVER_ABORTED
from ._backend import MoveOnScope, current_backend, move_on_after, sleep, to_thread
from ._batch import MAX_ABORT_GRACE_SECONDS
from ._outcomes import error_info_from
from ._render import for_assistant
from ._steps import BatchSteps, CallUnit, StepHook, prepare_call
from ._validation import missing_schema_blocked, validation_verdict

__all__ = [
    "MAX_ABORT_GRACE_SECONDS",
    "NEVER_ABORTED",
    "BatchSteps",
    "CallUnit",
    "MoveOnScope",
    "StepHook",
    "current_backend",
    "error_info_from",
    "for_assistant",
    "missing_schema_blocked",
    "move_on_after",
    "prepare_call",
    "sleep",
    "to_thread",
    "validation_verdict",
]
