"""Low-level hooks for integrations that run Prism's pipeline somewhere special.

Like ``trio.lowlevel``: stable and documented, but meant for integration authors (a durable
backend, a tracer), not for hosts. ``StepHook`` wraps every call of a batch in a unit of the
integration's choosing; ``dispatch_tool_calls_in_order(step_hook=...)`` and
``RunOptions(step_hook=...)`` take one (see docs/core.md, "prism.core.lowlevel").
"""

from __future__ import annotations

from ._backend import current_backend
from ._batch import MAX_ABORT_GRACE_SECONDS
from ._outcomes import error_info_from
from ._steps import BatchSteps, CallUnit, StepHook

__all__ = [
    "MAX_ABORT_GRACE_SECONDS",
    "BatchSteps",
    "CallUnit",
    "StepHook",
    "current_backend",
    "error_info_from",
]
