"""Postgres: a real private server; two queue workers share a batch; one is killed mid-batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from prism.dbos import OUTCOME_UNKNOWN

if TYPE_CHECKING:
    from conftest import App

pytestmark = pytest.mark.slow
N = 6
QUEUE = ["--script", "batch", "--queue", "--concurrency", "6", "--worker-concurrency", "2"]


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def test_a_durable_run_on_postgres_survives_a_crash(postgres_app: App) -> None:
    postgres_app.kill_at("c4", "run")
    result = postgres_app.run("recover")
    assert [r["tool_call_id"] for r in tool_results(result)] == ["c1", "c2", "c3", "c4"]
    assert tool_results(result)[3]["error"]["code"] == OUTCOME_UNKNOWN
    begins = postgres_app.begins()
    assert (begins["c1"], begins["c2"], begins["c4"]) == (1, 1, 1)
    assert begins["c3"] in (1, 2)  # idempotent: re-run if it was in flight beside c4
    for call in ["c1", "c2", "c4"]:
        assert len([r for r in postgres_app.ledger(call) if r[0] != "started"]) == 1
    # c3 may have written its row and died before its result was recorded, then run again:
    # the keyed ledger (row ids unique) keeps one outcome row
    assert {r for r in postgres_app.ledger("c3") if r[0] != "started"} == {("finished", None)}
    for call in ["c1", "c2", "c3", "c4"]:
        assert len(postgres_app.outcomes(call)) == 1


def test_two_workers_share_a_batch_and_a_killed_worker_loses_no_guarantee(
    postgres_app: App,
) -> None:
    env = {"PRISM_TEST_N": str(N), "PRISM_TEST_SLOW": "0.5"}
    for name in ("worker-a", "worker-b"):
        postgres_app.spawn("worker", *QUEUE, "--executor", name, hang="b2", **env)
    host = postgres_app.spawn("run", *QUEUE, "--executor", "host", **env)
    # Whichever worker dequeues b2 dies inside it (other calls are done or running elsewhere).
    victim = postgres_app.wait_reached("b2")
    executor = victim.args[victim.args.index("--executor") + 1]
    postgres_app.kill(victim)
    # The restarted worker (same executor id) recovers what it was running.
    postgres_app.spawn("worker", *QUEUE, "--executor", executor, **env)
    result = postgres_app.finish(host)
    results = tool_results(result)
    ids = [f"b{i}" for i in range(N)]
    assert [r["tool_call_id"] for r in results] == ids
    # Every call is a side effect: none ran twice; those the victim was running (b2 at least)
    # became outcome_unknown, every other call finished.
    assert postgres_app.begins() == dict.fromkeys(ids, 1)
    victim_calls = {
        r["call"] for r in postgres_app.rows("executions.jsonl") if r["pid"] == victim.pid
    }
    assert results[2]["error"]["code"] == OUTCOME_UNKNOWN
    for call, r in zip(ids, results, strict=True):
        if r["error"] is not None:
            assert r["error"]["code"] == OUTCOME_UNKNOWN and call in victim_calls, r
        else:
            assert r["content"] == [{"kind": "text", "text": f"note:{call}"}]
    pids = {row["pid"] for row in postgres_app.rows("executions.jsonl")}
    assert len(pids) >= 2, "the batch should have run on more than one worker"
    for call in ids:
        terminal = [row for row in postgres_app.ledger(call) if row[0] != "started"]
        assert len(terminal) == 1, (call, postgres_app.ledger(call))
