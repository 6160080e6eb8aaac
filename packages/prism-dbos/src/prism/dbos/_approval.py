"""Durable approvals: each wait has its own DBOS topic (run, turn, position in the turn), and
the run publishes per call id what state its approval is in, so a sender learns what happened.
"""

from __future__ import annotations

import asyncio
import enum
import os
import time
from typing import Any, Protocol

from dbos import DBOS, DBOSClient
from prism.core.options import check_seconds

from ._codec import Plain
from ._options import ApprovalOptions

__all__ = [
    "AWAITING_APPROVAL_EVENT",
    "ApprovalDelivery",
    "await_decision",
    "send_approval",
    "send_approval_async",
]

AWAITING_APPROVAL_EVENT = "prism.awaiting_approval"
_MAX_REASON = 2000
_FINISHED = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})


class ApprovalDelivery(enum.StrEnum):
    """What ``send_approval`` did with a decision."""

    DELIVERED = "delivered"
    """The call was waiting; the decision is on its way to it."""
    UNKNOWN_RUN = "unknown_run"
    """No run has this id."""
    UNKNOWN_CALL = "unknown_call"
    """The run has not (yet) waited for an approval of this call id."""
    ALREADY_DECIDED = "already_decided"
    """The latest wait of this call id has its decision; this one was dropped."""
    EXPIRED = "expired"
    """The latest wait of this call id timed out; the call was blocked."""
    RUN_FINISHED = "run_finished"
    """The run ended; nothing waits any more."""


def _state_key(call_id: str) -> str:
    return f"prism.approval.call:{call_id}"


def _decision_key(topic: str) -> str:
    return f"prism.approval.taken:{topic}"


def _message(approved: bool, reason: str | None) -> dict[str, object]:
    if not isinstance(approved, bool):
        raise TypeError(f"send_approval.approved must be True or False, got {approved!r:.200}")
    if reason is not None and (not isinstance(reason, str) or len(reason) > _MAX_REASON):
        error = ValueError if isinstance(reason, str) else TypeError
        rule = f"None or a str of at most {_MAX_REASON:,} characters"
        raise error(f"send_approval.reason must be {rule}, got {reason!r:.200}")
    return {"approved": approved, "reason": reason}


def _check_ids(run_id: str, call_id: str) -> None:
    for field, value in (("run_id", run_id), ("call_id", call_id)):
        if not isinstance(value, str) or not value:
            error = ValueError if isinstance(value, str) else TypeError
            raise error(f"send_approval.{field} must be a non-empty str, got {value!r:.200}")


class _Port(Protocol):
    """What deciding needs of DBOS: a launched ``DBOS`` or a ``DBOSClient``."""

    def list_workflows(self, *, workflow_ids: list[str]) -> list[Any]: ...
    def get_event(self, workflow_id: str, key: str, timeout_seconds: float) -> Any: ...
    def send(self, destination_id: str, message: Any, topic: str, idempotency_key: str) -> None: ...


class _Launched:
    """This process's launched DBOS as a ``_Port``."""

    def list_workflows(self, *, workflow_ids: list[str]) -> list[Any]:
        return DBOS.list_workflows(workflow_ids=workflow_ids)

    def get_event(self, workflow_id: str, key: str, timeout_seconds: float) -> Any:
        return DBOS.get_event(workflow_id, key, timeout_seconds)

    def send(self, destination_id: str, message: Any, topic: str, idempotency_key: str) -> None:
        DBOS.send(destination_id, message, topic, idempotency_key=idempotency_key)


def _decide(
    port: _Port, run_id: str, call_id: str, message: dict[str, object], confirm: float
) -> ApprovalDelivery:
    found = port.list_workflows(workflow_ids=[run_id])
    if not found:
        return ApprovalDelivery.UNKNOWN_RUN
    if found[0].status in _FINISHED:
        return ApprovalDelivery.RUN_FINISHED
    state: Any = port.get_event(run_id, _state_key(call_id), 0)
    if not isinstance(state, dict) or not isinstance(state.get("topic"), str):
        return ApprovalDelivery.UNKNOWN_CALL
    if state.get("state") == "decided":
        return ApprovalDelivery.ALREADY_DECIDED
    deadline = state.get("deadline")
    expired = isinstance(deadline, int | float) and time.time() >= deadline
    if state.get("state") == "expired" or expired:
        return ApprovalDelivery.EXPIRED
    topic: str = state["topic"]
    nonce = os.urandom(16).hex()
    port.send(run_id, {**message, "nonce": nonce}, topic, f"{run_id}:{topic}")
    return _confirm(port, run_id, topic, nonce, confirm)


def _confirm(port: _Port, run_id: str, topic: str, nonce: str, seconds: float) -> ApprovalDelivery:
    """Wait (at most ``seconds``) for the run to record which decision its wait took."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        taken: Any = port.get_event(run_id, _decision_key(topic), 0)
        if isinstance(taken, dict):
            if taken.get("state") == "expired":
                return ApprovalDelivery.EXPIRED
            if taken.get("nonce") == nonce:
                return ApprovalDelivery.DELIVERED
            return ApprovalDelivery.ALREADY_DECIDED
        time.sleep(0.05)
    return ApprovalDelivery.DELIVERED


def send_approval(
    run_id: str,
    call_id: str,
    approved: bool,
    *,
    reason: str | None = None,
    database_url: str | None = None,
    confirm_seconds: float = 5.0,
) -> ApprovalDelivery:
    """Decide the approval call ``call_id`` of run ``run_id`` waits for, from any process.

    Without ``database_url`` this process's launched DBOS sends it; with one, a ``DBOSClient``
    (no launch needed, e.g. in a web handler). Returns what happened; only the first decision
    per wait counts. A call id reused in a later turn is decided per wait, in order. After
    sending, it waits up to ``confirm_seconds`` for the run to take the decision (a concurrent
    one may win: ``ALREADY_DECIDED``); a run that is not running then keeps it queued
    (``DELIVERED``).
    """
    _check_ids(run_id, call_id)
    message = _message(approved, reason)
    confirm = check_seconds("send_approval.confirm_seconds", confirm_seconds, cap=600.0)
    if database_url is None:
        return _decide(_Launched(), run_id, call_id, message, confirm)
    client = DBOSClient(system_database_url=database_url)
    try:
        return _decide(client, run_id, call_id, message, confirm)
    finally:
        client.destroy()


async def send_approval_async(
    run_id: str,
    call_id: str,
    approved: bool,
    *,
    reason: str | None = None,
    confirm_seconds: float = 5.0,
) -> ApprovalDelivery:
    """``send_approval`` through this process's launched DBOS, without blocking the loop."""
    _check_ids(run_id, call_id)
    message = _message(approved, reason)
    confirm = check_seconds("send_approval.confirm_seconds", confirm_seconds, cap=600.0)
    return await asyncio.to_thread(_decide, _Launched(), run_id, call_id, message, confirm)


async def await_decision(
    plan: Plain, options: ApprovalOptions, turn: int, index: int
) -> str | None:
    """Inside the run's workflow: publish what waits, then wait durably for the decision.

    The wait is keyed by run, turn and position, so a reused call id never meets another
    wait's decision. Returns ``None`` when approved, else why the call is refused (denied,
    timed out, or a malformed decision: fail closed).
    """
    call = plan["call"]
    topic = f"prism.approval:{turn}:{index}"
    deadline = time.time() + options.timeout_seconds
    state = {"state": "waiting", "topic": topic, "deadline": deadline}
    await DBOS.set_event_async(_state_key(call["id"]), state)
    waiting = {"call_id": call["id"], "name": call["name"], "arguments": call["arguments"]}
    await DBOS.set_event_async(AWAITING_APPROVAL_EVENT, {**waiting, "turn": turn, "index": index})
    decision: Any = await DBOS.recv_async(topic, timeout_seconds=options.timeout_seconds)
    outcome = "expired" if decision is None else "decided"
    nonce = decision.get("nonce") if isinstance(decision, dict) else None
    await DBOS.set_event_async(_decision_key(topic), {"state": outcome, "nonce": nonce})
    await DBOS.set_event_async(_state_key(call["id"]), {"state": outcome, "topic": topic})
    if decision is None:
        return f"Approval timed out after {options.timeout_seconds:g} s; the call was not run"
    if not isinstance(decision, dict) or not isinstance(decision.get("approved"), bool):
        return "Approval decision was malformed; the call was not run"
    if decision["approved"]:
        return None
    reason = decision.get("reason")
    suffix = f": {reason}" if isinstance(reason, str) and reason else ""
    return f"Approval denied{suffix}"
