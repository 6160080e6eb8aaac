"""Durable approvals: a call waits on its own DBOS topic; any process may send the decision."""

from __future__ import annotations

from typing import Any

from dbos import DBOS, DBOSClient

from ._codec import Plain
from ._options import ApprovalOptions

__all__ = [
    "AWAITING_APPROVAL_EVENT",
    "approval_topic",
    "await_decision",
    "send_approval",
    "send_approval_async",
]

AWAITING_APPROVAL_EVENT = "prism.awaiting_approval"
_MAX_REASON = 2000


def approval_topic(call_id: str) -> str:
    """The DBOS topic the decision for ``call_id`` arrives on."""
    return f"prism.approval:{call_id}"


def _message(approved: bool, reason: str | None) -> dict[str, object]:
    if not isinstance(approved, bool):
        raise TypeError(f"approved must be a bool, got {type(approved).__name__}")
    if reason is not None and (not isinstance(reason, str) or len(reason) > _MAX_REASON):
        raise ValueError(f"reason must be None or a str of at most {_MAX_REASON} characters")
    return {"approved": approved, "reason": reason}


def _check_ids(run_id: str, call_id: str) -> None:
    for field, value in (("run_id", run_id), ("call_id", call_id)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{field} must be a non-empty str, got {value!r}")


def send_approval(
    run_id: str,
    call_id: str,
    approved: bool,
    *,
    reason: str | None = None,
    database_url: str | None = None,
) -> None:
    """Decide the approval ``call_id`` of run ``run_id`` awaits, from any process.

    Without ``database_url`` this process's launched DBOS sends it; with one, a ``DBOSClient``
    (no launch needed, e.g. in a web handler). Only the first decision per call counts.
    """
    _check_ids(run_id, call_id)
    message = _message(approved, reason)
    key = f"prism.approval:{run_id}:{call_id}"
    if database_url is None:
        DBOS.send(run_id, message, approval_topic(call_id), idempotency_key=key)
        return
    client = DBOSClient(system_database_url=database_url)
    try:
        client.send(run_id, message, approval_topic(call_id), idempotency_key=key)
    finally:
        client.destroy()


async def send_approval_async(
    run_id: str, call_id: str, approved: bool, *, reason: str | None = None
) -> None:
    """``send_approval`` through this process's launched DBOS, without blocking the loop."""
    _check_ids(run_id, call_id)
    message = _message(approved, reason)
    key = f"prism.approval:{run_id}:{call_id}"
    await DBOS.send_async(run_id, message, approval_topic(call_id), idempotency_key=key)


async def await_decision(plan: Plain, options: ApprovalOptions) -> str | None:
    """Inside the run's workflow: publish what waits, then wait durably for the decision.

    Returns ``None`` when approved, else why the call is refused (denied, timed out, or a
    malformed decision: fail closed).
    """
    call = plan["call"]
    waiting = {"call_id": call["id"], "name": call["name"], "arguments": call["arguments"]}
    await DBOS.set_event_async(AWAITING_APPROVAL_EVENT, waiting)
    decision: Any = await DBOS.recv_async(
        approval_topic(call["id"]), timeout_seconds=options.timeout_seconds
    )
    if decision is None:
        return f"Approval timed out after {options.timeout_seconds:g} s; the call was not run"
    if not isinstance(decision, dict) or not isinstance(decision.get("approved"), bool):
        return "Approval decision was malformed; the call was not run"
    if decision["approved"]:
        return None
    reason = decision.get("reason")
    suffix = f": {reason}" if isinstance(reason, str) and reason else ""
    return f"Approval denied{suffix}"
