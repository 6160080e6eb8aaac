"""Operating the tool queue: a conflicting re-registration is an error (an identical one a
no-op), and a worker that dies holding a queued call never stalls the run: past the queue's
result deadline the call is ``outcome_unknown`` (``WorkerLost``), with an event and a row."""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING, Any

import pytest

from prism.core.testing import scaled
from prism.dbos import OUTCOME_UNKNOWN, WORKER_LOST, QueueOptions

if TYPE_CHECKING:
    from conftest import App

pytestmark = pytest.mark.slow
N = 4


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def lines(out: str) -> dict[str, str]:
    return dict(ln.split(" ", 1) for ln in out.splitlines() if ln.split(" ")[0].isupper())


def test_registering_a_queue_again_is_a_no_op_and_changing_it_an_error(each_app: App) -> None:
    first = lines(each_app.call("queues", "--worker-concurrency", "2"))
    assert first["FIRST"] == "ok 2" and first["AGAIN"] == "ok 2"
    assert first["CHANGED"].startswith("conflict: tool queue 'prism-test-queue': already")
    # Another process asking for other limits than the database holds is refused too.
    second = lines(each_app.call("queues", "--worker-concurrency", "3"))
    assert second["FIRST"].startswith("conflict: tool queue 'prism-test-queue': stored")
    assert "worker_concurrency=2" in second["FIRST"]


def test_the_result_deadline_is_checked() -> None:
    with pytest.raises(ValueError, match=r"QueueOptions.result_deadline_seconds must be"):
        QueueOptions(result_deadline_seconds=0)


def test_a_worker_lost_with_a_queued_call_gives_outcome_unknown_after_the_deadline(
    each_app: App,
) -> None:
    deadline = f"{scaled(3.0):g}"
    args = ["--script", "batch", "--queue", "--concurrency", str(N), "--worker-concurrency", "1"]
    env = {"PRISM_TEST_N": str(N)}
    for _ in range(2):  # unnamed workers: nobody restarts the victim's id, nobody recovers it
        each_app.spawn("worker", *args, "--executor", "default", hang="b1", **env)
    host = each_app.spawn("run", *args, "--executor", "host", "--result-deadline", deadline, **env)
    each_app.kill(each_app.wait_reached("b1"))
    result = each_app.finish(host)
    results = tool_results(result)
    assert [r["tool_call_id"] for r in results] == [f"b{i}" for i in range(N)]
    lost = results[1]["error"]
    assert (lost["code"], lost["name"]) == (OUTCOME_UNKNOWN, WORKER_LOST)
    assert "result_deadline_seconds" in lost["message"]
    assert [r["error"] for i, r in enumerate(results) if i != 1] == [None] * (N - 1)
    assert each_app.begins() == dict.fromkeys(results_ids(results), 1)
    assert [row for row in each_app.ledger("b1") if row[0] != "started"] == [
        ("error", OUTCOME_UNKNOWN)
    ]
    events = [e for e in each_app.rows("events.jsonl") if e["call"] == "b1"]
    assert {"kind": "ToolExecutionFailed", "code": OUTCOME_UNKNOWN, "name": WORKER_LOST} in [
        {k: e[k] for k in ("kind", "code", "name")} for e in events
    ]


def results_ids(results: list[dict[str, Any]]) -> list[str]:
    return [r["tool_call_id"] for r in results]


def test_without_a_deadline_queued_calls_are_collected_from_their_workflows(
    each_app: App,
) -> None:
    args = ["--script", "batch", "--queue", "--concurrency", str(N), "--worker-concurrency", "2"]
    each_app.spawn("worker", *args, "--executor", "worker-a", PRISM_TEST_N=str(N))
    result = each_app.run(
        "run", *args, "--executor", "host", "--result-deadline", "0", PRISM_TEST_N=str(N)
    )
    results = tool_results(result)
    assert results_ids(results) == [f"b{i}" for i in range(N)]
    assert [r["error"] for r in results] == [None] * N
    assert each_app.begins() == dict.fromkeys(results_ids(results), 1)


def test_a_slow_worker_finishing_after_the_deadline_leaves_one_outcome_row(each_app: App) -> None:
    args = ["--script", "batch", "--queue", "--concurrency", str(N), "--worker-concurrency", "2"]
    env = {"PRISM_TEST_N": str(N)}
    worker = each_app.spawn("worker", *args, "--executor", "worker-a", PRISM_TEST_PAUSE="b1", **env)
    host = each_app.spawn(
        "run", *args, "--executor", "host", "--result-deadline", f"{scaled(3.0):g}", **env
    )
    each_app.wait_reached("b1")  # the worker holds b1 (alive) past the deadline
    result = each_app.finish(host)
    assert tool_results(result)[1]["error"]["name"] == WORKER_LOST
    each_app.release("b1")  # now it concludes b1 too: a second outcome for the same call
    deadline = time.monotonic() + scaled(60.0)
    while each_app.ends()["b1"] == 0 or len(outcomes(each_app, "b1")) < 2:
        assert time.monotonic() < deadline and worker.poll() is None, "the worker never ended b1"
        time.sleep(0.05)
    attempts = outcomes(each_app, "b1")  # what the ledger was asked to store
    assert {(r["status"], r["reason"]) for r in attempts} == {
        ("error", OUTCOME_UNKNOWN),
        ("finished", None),
    }
    assert len({r["id"] for r in attempts}) == 1  # one row id per call outcome, everywhere
    with sqlite3.connect(each_app.log / "ledger.sqlite", timeout=60) as db:
        stored = db.execute(
            "SELECT status, reason FROM rows WHERE call = 'b1' AND status != 'started'"
        ).fetchall()
    assert stored == [("error", OUTCOME_UNKNOWN)]  # the unique id kept the first outcome only


def outcomes(app: App, call_id: str) -> list[dict[str, Any]]:
    rows = app.rows("ledger.jsonl")
    return [r for r in rows if r["call"] == call_id and r["status"] != "started"]
