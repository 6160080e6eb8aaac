"""``send_approval`` says what happened to a decision, and approvals are keyed by run, turn and
position: a call id the model reuses, in a later turn or twice in one turn, gets each of its
decisions (none is dropped, none waits out the timeout)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from prism.core.testing import scaled

if TYPE_CHECKING:
    from conftest import App

pytestmark = pytest.mark.slow


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def test_each_kind_of_decision_says_what_happened(each_app: App) -> None:
    running = each_app.spawn(
        "run", "--script", "approval", "--approval-timeout", "600", PRISM_TEST_PAUSE="a2"
    )
    json.loads(each_app.call("await-approval", "--run-id", "run-1"))
    assert each_app.approve("a2", "--approved", run_id="run-404") == "unknown_run"
    assert each_app.approve("zz", "--approved") == "unknown_call"
    assert each_app.approve("a2", "--approved") == "delivered"
    each_app.wait_reached("a2")  # approved: the call runs (and waits there for the test)
    assert each_app.approve("a2") == "already_decided"
    each_app.release("a2")
    result = each_app.finish(running)
    assert tool_results(result)[1]["error"] is None
    assert each_app.begins() == {"a1": 1, "a2": 1}
    assert each_app.approve("a2", "--approved") == "run_finished"


def test_a_decision_after_the_timeout_is_reported_expired(each_app: App) -> None:
    timeout = f"{scaled(2.0):g}"
    running = each_app.spawn(
        "run", "--script", "expire", "--approval-timeout", timeout, PRISM_TEST_PAUSE="e2"
    )
    each_app.wait_reached("e2")  # e1's wait timed out and the run went on to the next turn
    assert each_app.approve("e1", "--approved") == "expired"
    each_app.release("e2")
    result = each_app.finish(running)
    e1 = tool_results(result)[0]
    assert e1["error"]["code"] == "permission_denied" and "timed out" in e1["error"]["message"]
    assert "e1" not in each_app.begins()


def test_a_reused_call_id_gets_every_decision_within_a_turn_and_across_turns(
    each_app: App,
) -> None:
    running = each_app.spawn("run", "--script", "reuse", "--approval-timeout", "600")
    each_app.call("await-approval", "--run-id", "run-1")
    for _ in range(3):  # r1 twice in turn one, then r1 again in turn two
        assert each_app.approve("r1", "--approved", "--expect", "delivered") == "delivered"
    result = each_app.finish(running)
    results = tool_results(result)
    assert [r["tool_call_id"] for r in results] == ["r1", "r1", "r1"]
    assert [r["error"] for r in results] == [None, None, None]
    assert each_app.begins() == {"r1": 3}


def test_a_reused_call_id_denied_once_is_approved_the_next_time(each_app: App) -> None:
    running = each_app.spawn("run", "--script", "reuse", "--approval-timeout", "600")
    each_app.call("await-approval", "--run-id", "run-1")
    # a call that never waits for approval (none of this run's) is unknown, not delivered
    assert each_app.approve("zz", "--approved") == "unknown_call"
    assert each_app.approve("r1", "--expect", "delivered") == "delivered"  # a denial
    for _ in range(2):
        assert each_app.approve("r1", "--approved", "--expect", "delivered") == "delivered"
    results = tool_results(each_app.finish(running))
    assert [r["tool_call_id"] for r in results] == ["r1", "r1", "r1"]
    assert results[0]["error"]["code"] == "permission_denied"
    assert [r["error"] for r in results[1:]] == [None, None]
    assert each_app.begins() == {"r1": 2}
