"""Two processes that leave the executor id unnamed on one database never take each other's
live runs; a named id stays stable so a restarted process still recovers its own."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from prism.dbos import DbosBackendOptions, default_executor_id

if TYPE_CHECKING:
    from conftest import App

pytestmark = pytest.mark.slow
CALLS = ["c1", "c2", "c3", "c4"]


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def test_a_second_unnamed_process_does_not_recover_the_first_ones_live_run(
    each_app: App,
) -> None:
    first = each_app.spawn("run", "--executor", "default", PRISM_TEST_PAUSE="c1")
    assert each_app.wait_reached("c1") is first
    second = each_app.spawn("worker", "--executor", "default")
    # What the second process's start-up recovery takes over: nothing of the first's.
    assert json.loads(each_app.line(second, "RECOVERING ")) == []
    each_app.release("c1")
    result = each_app.finish(first)
    results = tool_results(result)
    assert [r["tool_call_id"] for r in results] == CALLS
    assert [r["error"] for r in results] == [None] * 4
    assert each_app.begins() == dict.fromkeys(CALLS, 1)
    assert {r["pid"] for r in each_app.rows("executions.jsonl")} == {first.pid}
    for call in CALLS:
        assert each_app.ledger(call) == [("started", None), ("finished", None)]


def test_two_live_unnamed_hosts_each_finish_their_own_run_untouched(each_app: App) -> None:
    # Two hosts with default executor ids, each with a live run paused mid-call, and a third
    # process launched on the same database meanwhile: nobody takes over anybody's run.
    first = each_app.spawn("run", "--executor", "default", "--run-id", "run-a",
                           PRISM_TEST_PAUSE="c1")  # fmt: skip
    assert each_app.wait_reached("c1") is first
    second = each_app.spawn("run", "--executor", "default", "--run-id", "run-b",
                            PRISM_TEST_PAUSE="c3")  # fmt: skip
    assert each_app.wait_reached("c3") is second
    third = each_app.spawn("worker", "--executor", "default")
    assert json.loads(each_app.line(third, "RECOVERING ")) == []
    each_app.release("c1")
    each_app.release("c3")
    for host in (first, second):
        results = tool_results(each_app.finish(host))
        assert [r["tool_call_id"] for r in results] == CALLS
        assert [r["error"] for r in results] == [None] * 4
    assert each_app.begins() == dict.fromkeys(CALLS, 2)  # once per run
    for call in CALLS:
        begun = each_app.rows("executions.jsonl")
        pids = sorted(r["pid"] for r in begun if r["call"] == call and r["at"] == "begin")
        assert pids == sorted([first.pid, second.pid])
        assert sorted(each_app.ledger(call)) == [("finished", None)] * 2 + [("started", None)] * 2


def test_a_named_executor_recovers_its_run_after_a_restart(each_app: App) -> None:
    each_app.kill_at("model-1", "run", "--executor", "host-a")
    result = each_app.run("recover", "--executor", "host-a")
    assert [r["tool_call_id"] for r in tool_results(result)] == CALLS
    assert [r["error"] for r in tool_results(result)] == [None] * 4
    assert each_app.begins() == dict.fromkeys(CALLS, 1)


def test_the_default_executor_id_is_unique_per_process_unless_dbos_vmid_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DBOS__VMID", raising=False)
    ids = {default_executor_id() for _ in range(50)}
    assert len(ids) == 50 and all(i.startswith("prism-") for i in ids)
    for executor in ids:  # every generated id is a valid DbosBackendOptions.executor_id
        DbosBackendOptions(app_name="a", database_url="sqlite:///x", executor_id=executor)
    monkeypatch.setenv("DBOS__VMID", "worker-7")
    assert default_executor_id() == "worker-7"
