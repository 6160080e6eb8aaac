"""At-most-once at every kill point of a durable run, on SQLite and on PostgreSQL: before a
call starts (its model step recorded, nothing run), inside the handler, after the handler
returned (its result not yet recorded), after the record, during an approval wait, and during
recovery. A side-effecting call never runs twice; one that may have run is ``outcome_unknown``.

The run is the two-turn script: ``c1`` (side effect) and ``c2`` (read-only), then ``c3``
(idempotent) and ``c4`` (side effect), two calls at a time; each role is a real process
killed with ``SIGKILL``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from prism.dbos import OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_MESSAGE

if TYPE_CHECKING:
    from conftest import App

pytestmark = pytest.mark.slow

CALLS = ["c1", "c2", "c3", "c4"]


def tool_results(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tools = [m["result"] for m in result["messages"] if m["role"] == "tool"]
    return {r["tool_call_id"]: r for r in tools}


def terminal_rows(app: App, call_id: str) -> list[tuple[str, str | None]]:
    return [row for row in app.ledger(call_id) if row[0] != "started"]


def assert_c4_unknown_and_the_rest_once(app: App, result: dict[str, Any], c4_began: int) -> None:
    results = tool_results(result)
    assert list(results) == CALLS and result["status"] == "succeeded"
    assert results["c4"]["error"]["code"] == OUTCOME_UNKNOWN
    assert results["c4"]["error"]["message"] == OUTCOME_UNKNOWN_MESSAGE
    assert app.begins()["c4"] == c4_began
    assert terminal_rows(app, "c4") == [("error", OUTCOME_UNKNOWN)]
    for call in ["c1", "c2", "c3"]:
        assert results[call]["error"] is None, results[call]
    for call in ["c1", "c2"]:
        assert terminal_rows(app, call) == [("finished", None)]
    assert app.begins()["c1"] == 1 and app.begins()["c2"] == 1
    # c3 is idempotent: when it was in flight beside c4 it runs again (at-least-once)
    assert app.begins()["c3"] in (1, 2)
    assert set(terminal_rows(app, "c3")) == {("finished", None)}


def test_killed_before_the_calls_start_a_side_effect_is_unknown_and_never_runs(
    each_app: App,
) -> None:
    # The turn's model step is recorded; the process dies in tool_call middleware, before any
    # call of the turn started. The model step is the calls' only record before their start,
    # so the side-effecting c4 cannot be told from one that started: outcome_unknown, not run.
    each_app.kill_at("prepare-c3", "run")
    result = each_app.run("recover")
    assert_c4_unknown_and_the_rest_once(each_app, result, c4_began=0)
    assert each_app.begins()["c3"] == 1  # idempotent: runs (once) after the restart


def test_killed_inside_a_handler_the_side_effect_is_not_run_again(each_app: App) -> None:
    each_app.kill_at("c4", "run")
    result = each_app.run("recover")
    assert_c4_unknown_and_the_rest_once(each_app, result, c4_began=1)
    assert each_app.ends()["c4"] == 0


def test_killed_after_the_handler_returned_the_side_effect_is_not_run_again(
    each_app: App,
) -> None:
    each_app.kill_at("returned-c4", "run")
    result = each_app.run("recover")
    assert_c4_unknown_and_the_rest_once(each_app, result, c4_began=1)
    assert each_app.ends()["c4"] == 1


def test_killed_after_the_results_are_recorded_nothing_runs_again(each_app: App) -> None:
    each_app.kill_at("model-2", "run")
    result = each_app.run("recover")
    results = tool_results(result)
    assert list(results) == CALLS and all(r["error"] is None for r in results.values())
    assert each_app.begins() == dict.fromkeys(CALLS, 1)
    for call in CALLS:
        assert terminal_rows(each_app, call) == [("finished", None)]


def test_killed_during_recovery_a_second_recovery_keeps_at_most_once(each_app: App) -> None:
    each_app.kill_at("c4", "run")
    each_app.kill_at("model-2", "recover")  # the recovery itself dies after recording c4
    result = each_app.run("recover")
    assert_c4_unknown_and_the_rest_once(each_app, result, c4_began=1)


def test_killed_during_an_approval_wait_the_approved_call_runs_once(each_app: App) -> None:
    approval = ["--script", "approval", "--approval-timeout", "600"]
    first = each_app.spawn("run", *approval)
    awaiting = json.loads(each_app.call("await-approval", "--run-id", "run-1"))
    assert awaiting["call_id"] == "a2"
    each_app.kill(first)
    recovering = each_app.spawn("recover", *approval)
    assert each_app.approve("a2", "--approved", "--expect", "delivered") == "delivered"
    result = each_app.finish(recovering)
    results = tool_results(result)
    assert results["a2"]["error"] is None and results["a2"]["content"][0]["text"] == "deploy:a2"
    assert each_app.begins() == {"a1": 1, "a2": 1}
    assert terminal_rows(each_app, "a2") == [("finished", None)]


def batch_ids(n: int) -> list[str]:
    return [f"b{i}" for i in range(n)]


def assert_only_unknown(
    app: App, results: list[dict[str, Any]], unknown: str, n: int, *, beside: bool = False
) -> None:
    """No call began twice; ``unknown`` is ``outcome_unknown``, every other call finished once
    — or, with ``beside``, was also ``outcome_unknown`` (its pipeline step was in flight beside
    ``unknown`` when the process died, its handler begun or not: it did not run again)."""
    assert [r["tool_call_id"] for r in results] == batch_ids(n)
    for r in results:
        call = r["tool_call_id"]
        assert app.begins()[call] <= 1, call
        if call == unknown:
            assert app.begins()[call] == 1
            assert r["error"]["code"] == OUTCOME_UNKNOWN
            assert terminal_rows(app, call) == [("error", OUTCOME_UNKNOWN)]
        elif beside and r["error"] is not None:
            assert r["error"]["code"] == OUTCOME_UNKNOWN
            # it may have written its own row before the process died: the keyed store
            # (row ids are unique) keeps one outcome row for the call
            assert terminal_rows(app, call)[-1] == ("error", OUTCOME_UNKNOWN)
            assert len(app.outcomes(call)) == 1
        else:
            assert r["error"] is None, r
            assert app.begins()[call] == 1, call
            assert terminal_rows(app, call) == [("finished", None)]


def test_an_agent_turn_run_one_at_a_time_resumes_after_the_interrupted_call(
    each_app: App,
) -> None:
    # b2 returned but was not recorded; b3 and b4 had not started (one call at a time): they
    # run after the restart, b2 does not.
    agent = ["--script", "batch", "--concurrency", "1"]
    each_app.kill_at("returned-b2", "run", *agent, PRISM_TEST_N="5")
    result = each_app.run("recover", *agent, PRISM_TEST_N="5")
    results = [m["result"] for m in result["messages"] if m["role"] == "tool"]
    assert_only_unknown(each_app, results, "b2", 5)


@pytest.mark.parametrize(
    ("concurrency", "point", "unknown"), [(1, "returned-b1", "b1"), (2, "b3", "b3")]
)
def test_a_bare_batch_killed_mid_batch_never_reruns_a_side_effect(
    each_app: App, concurrency: int, point: str, unknown: str
) -> None:
    batch = ["--concurrency", str(concurrency)]
    each_app.kill_at(point, "batch", *batch, PRISM_TEST_N="5")
    result = each_app.run("batch", *batch, PRISM_TEST_N="5")
    assert_only_unknown(each_app, result["results"], unknown, 5, beside=concurrency > 1)


def test_a_bare_batch_killed_before_its_calls_start_runs_each_once(each_app: App) -> None:
    # No step precedes a bare batch's calls: its own marker, written just before the first
    # call starts, was not written yet, so nothing is unknown.
    each_app.kill_at("prepare-b0", "batch", "--concurrency", "2", PRISM_TEST_N="3")
    result = each_app.run("batch", "--concurrency", "2", PRISM_TEST_N="3")
    assert_only_unknown(each_app, result["results"], "", 3)
