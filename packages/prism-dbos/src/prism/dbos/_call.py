"""One queued call's durable unit, as a queue worker runs it: a ``started`` marker step (the
first step of the call's own workflow: nothing recorded precedes it), then the whole pipeline
as one step. ``_hook`` runs calls in the run's own process with one step per call.

Replay returns the recorded result without running gates or handler, so events and ledger rows
are emitted once. A marker recorded by an earlier process with no result after it means the
process died inside the pipeline: the call's result is then ``outcome_unknown``. Read-only and
idempotent calls are re-run after a crash anyway, so they get no marker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol

from prism.core import AbortSignal, ErrorInfo, ToolResult

from ._codec import Plain, decode_call, decode_result, encode_result
from ._ledger import CALL_KEY
from ._toolset import toolset_named

__all__ = [
    "OUTCOME_UNKNOWN",
    "OUTCOME_UNKNOWN_MESSAGE",
    "PIPELINE_STEP",
    "CallSpec",
    "StepRunner",
    "mark",
    "needs_marker",
    "run_call_steps",
]

OUTCOME_UNKNOWN = "outcome_unknown"
OUTCOME_UNKNOWN_MESSAGE = "the process stopped while this tool ran; it was not run again"
MARKER_STEP = "prism.call.started"
PIPELINE_STEP = "prism.call"


class StepRunner(Protocol):
    """Runs ``fn(*args)`` as a recorded step (a reserved DBOS step id, or the next one)."""

    async def __call__(self, name: str, fn: Callable[..., Any], *args: Any) -> Any: ...


class CallSpec:
    """A planned call: ids, the call itself (after its ``tool_call`` middleware), and the
    approval's denial once decided."""

    __slots__ = ("call", "denial", "run_id", "session_id", "toolset")

    def __init__(self, toolset: str, session_id: str, run_id: str, plan: Plain) -> None:
        self.toolset = toolset
        self.session_id = session_id
        self.run_id = run_id
        self.call: Plain = plan["call"]
        self.denial: str | None = None


def _echo(token: str) -> str:
    return token


def needs_marker(spec: CallSpec) -> bool:
    """Whether an interrupted run of ``spec`` must not be repeated: it is not refused and its
    tool is neither read-only nor idempotent (those are re-run, so they need no marker)."""
    if spec.denial is not None:
        return False
    try:
        tool = toolset_named(spec.toolset).tool(spec.call["name"])
    except Exception:  # a name that cannot be looked up: the call is blocked, never run
        return False
    return tool is not None and not (tool.read_only or tool.idempotent)


async def mark(marker: StepRunner) -> bool:
    """Record a fresh attempt token; ``True`` when an earlier attempt's token was recorded
    (the process that wrote it died before the calls it covers recorded their results)."""
    attempt = os.urandom(16).hex()
    return bool(await marker(MARKER_STEP, _echo, attempt) != attempt)


async def run_call_steps(
    spec: CallSpec, pipeline: StepRunner, signal: AbortSignal, *, interrupted: bool, key: str
) -> ToolResult:
    """Run (or replay) one queued call's pipeline step in its worker; the recorded result.
    ``interrupted`` comes from the call's marker (see ``mark``); ``key`` names its rows."""

    async def body() -> Plain:
        token = CALL_KEY.set(key)
        try:
            return encode_result(await _pipeline(spec, interrupted, signal))
        finally:
            CALL_KEY.reset(token)

    recorded: Plain = await pipeline(PIPELINE_STEP, body)
    return decode_result(recorded)


async def _pipeline(spec: CallSpec, interrupted: bool, signal: AbortSignal) -> ToolResult:
    toolset = toolset_named(spec.toolset)
    call = decode_call(spec.call)
    unit = toolset.unit(call, toolset.context(spec.session_id, spec.run_id, call.id, signal))
    tool = unit.tool
    if interrupted and not (tool is not None and (tool.read_only or tool.idempotent)):
        unknown = ErrorInfo(
            code=OUTCOME_UNKNOWN, name="OutcomeUnknown", message=OUTCOME_UNKNOWN_MESSAGE
        )
        return await unit.fail(unknown)
    return await unit.run()
