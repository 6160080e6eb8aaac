"""Distributed execution: each call is a child workflow on a DBOS queue, run by any worker.

The queue's ``global_concurrency`` and ``worker_concurrency`` bound calls across and within
workers; the parent (``_hook``) keeps call order, the turn's concurrency (an exclusive tool:
one at a time) and one fixed order of enqueues and collections. The child
sends its result to the parent on a topic of its own; the parent's durable wait for it has a
deadline (``QueueOptions.result_deadline_seconds``), so a lost worker never stalls the run.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, final

from dbos import DBOS, Queue
from prism.core import AbortController, ErrorInfo, PrismError, ToolResult

from ._call import OUTCOME_UNKNOWN, CallSpec, mark, needs_marker, run_call_steps
from ._codec import Plain, decode_call, decode_result, encode_result
from ._ledger import CALL_KEY, call_key
from ._options import QueueOptions
from ._toolset import toolset_named

__all__ = [
    "CALL_WORKFLOW",
    "WORKER_LOST",
    "QueueConflictError",
    "call_workflow",
    "collect",
    "plan_of",
    "register_tool_queue",
]

CALL_WORKFLOW = "prism.dbos.call"
WORKER_LOST = "WorkerLost"
"""``ErrorInfo.name`` of the ``outcome_unknown`` result of a queued call past its deadline."""
_REGISTERED: dict[str, QueueOptions] = {}
_LOCK = threading.Lock()


@final
class QueueConflictError(PrismError, ValueError):
    """A tool queue was registered again with different limits (the last would silently win)."""


def _limits(global_concurrency: int | None, worker_concurrency: int | None) -> str:
    return f"global_concurrency={global_concurrency}, worker_concurrency={worker_concurrency}"


async def register_tool_queue(options: QueueOptions) -> Queue:
    """Create the tool queue (after ``DBOS.launch()``; every process may call it).

    Registering it again with the same options is a no-op; with other options, in this
    process or against what the database holds, it raises ``QueueConflictError``.
    """
    if not isinstance(options, QueueOptions):
        raise TypeError(f"register_tool_queue.options must be a QueueOptions, got {options!r:.200}")
    with _LOCK:
        prior = _REGISTERED.setdefault(options.name, options)
    if prior != options:
        raise QueueConflictError(
            f"tool queue {options.name!r}: already registered in this process as {prior}; "
            f"registering it again as {options} would change it: use one QueueOptions per queue"
        )
    try:
        return await _register(options)
    except BaseException:
        if prior is options:
            with _LOCK:
                _REGISTERED.pop(options.name, None)
        raise


async def _register(options: QueueOptions) -> Queue:
    stored = await DBOS.retrieve_queue_async(options.name)
    if stored is not None:
        held = await asyncio.to_thread(
            lambda: (stored.global_concurrency, stored.worker_concurrency)
        )
        wanted = (options.global_concurrency, options.worker_concurrency)
        if held != wanted:
            raise QueueConflictError(
                f"tool queue {options.name!r}: stored in the database with {_limits(*held)}; "
                f"this process asks for {_limits(*wanted)}: use the same limits in every "
                "process, or another queue name (DBOS.delete_queue drops the stored one)"
            )
        return stored
    return await DBOS.register_queue_async(
        options.name,
        global_concurrency=options.global_concurrency,
        worker_concurrency=options.worker_concurrency,
        polling_interval_sec=options.polling_interval_seconds,
        on_conflict="never_update",
    )


async def _step(name: str, fn: Any, *args: Any) -> Any:
    return await DBOS.run_step_async({"name": name}, fn, *args)


def _topic(key: str) -> str:
    return f"prism.queued:{key}"


@DBOS.workflow(name=CALL_WORKFLOW)
async def call_workflow(
    toolset: str, session_id: str, run_id: str, plan: Plain, key: str, reply: bool
) -> Plain:
    """One queued call (``key`` is ``<turn>:<index>``): the same marker and pipeline steps, in
    the worker that dequeued it; the result (or why it failed) is returned, and sent to the
    parent run on the call's topic when the parent waits with a deadline (``reply``)."""
    try:
        spec = CallSpec(toolset, session_id, run_id, plan)
        interrupted = await mark(_step) if needs_marker(spec) else False
        signal = AbortController().signal
        result = await run_call_steps(
            spec, _step, signal, interrupted=interrupted, key=call_key(run_id, *key.split(":"))
        )
        message: Plain = {"result": encode_result(result)}
    except Exception as exc:
        message = {"failed": f"{type(exc).__name__}: {exc}"[:2000]}
    if reply:
        await DBOS.send_async(run_id, message, _topic(key))
    return message


async def collect(spec: CallSpec, handle: Any, options: QueueOptions, key: str) -> ToolResult:
    """The queued call's result, or ``outcome_unknown`` once its deadline passed (durably)."""
    deadline = options.result_deadline_seconds
    message: Any
    if deadline is None:
        try:
            message = await handle.get_result(polling_interval_sec=options.polling_interval_seconds)
        except Exception as exc:
            return _worker_failed(spec, f"{type(exc).__name__}: {exc}")
    else:
        message = await DBOS.recv_async(_topic(key), timeout_seconds=deadline)
    if isinstance(message, dict) and isinstance(message.get("result"), dict):
        return decode_result(message["result"])
    if isinstance(message, dict) and isinstance(message.get("failed"), str):
        return _worker_failed(spec, message["failed"])
    if deadline is None:
        return _worker_failed(spec, f"malformed result {message!r}"[:200])
    child = handle.get_workflow_id()
    recorded: Plain = await DBOS.run_step_async(
        {"name": "prism.worker_lost"}, _worker_lost, spec.toolset, plan_of(spec),
        spec.session_id, spec.run_id, child, deadline, call_key(spec.run_id, *key.split(":")),
    )  # fmt: skip
    return decode_result(recorded)


async def _worker_lost(
    toolset: str,
    plan: Plain,
    session_id: str,
    run_id: str,
    child: str,
    deadline: float,
    ledger_key: str,
) -> Plain:
    """Step: cancel the queued call (a worker that recovers it later will not run it) and
    conclude it ``outcome_unknown``, with its ``ToolExecutionFailed`` event and ledger row."""
    await DBOS.cancel_workflow_async(child)
    ts = toolset_named(toolset)
    call = decode_call(plan["call"])
    context = ts.context(session_id, run_id, call.id, AbortController().signal)
    error = ErrorInfo(
        code=OUTCOME_UNKNOWN,
        name=WORKER_LOST,
        message=(
            f"no worker returned this queued call's result within {deadline:g} s "
            "(QueueOptions.result_deadline_seconds); it may or may not have run"
        ),
        details={"queued_workflow_id": child, "deadline_seconds": deadline},
    )
    token = CALL_KEY.set(ledger_key)  # the same row ids as the worker's conclusion would have
    try:
        return encode_result(await ts.unit(call, context).fail(error))
    finally:
        CALL_KEY.reset(token)


def plan_of(spec: CallSpec) -> Plain:
    """What a queued call's workflow is given: the final call (denied ones are never queued)."""
    return {"call": spec.call}


def _worker_failed(spec: CallSpec, why: str) -> ToolResult:
    call = decode_call(spec.call)
    error = ErrorInfo(
        code="worker_failed",
        name="WorkerFailed",
        message=f"the queued call failed on its worker: {why}"[:2000],
    )
    return ToolResult(tool_call_id=call.id, name=call.name, error=error)
