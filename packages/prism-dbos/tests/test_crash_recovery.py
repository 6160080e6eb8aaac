"""A durable run killed with SIGKILL at chosen points and recovered by a second process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from prism.dbos import OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_MESSAGE

if TYPE_CHECKING:
    from conftest import App

# Real DBOS processes launched, killed and recovered: deselect locally with -m 'not slow'.
pytestmark = pytest.mark.slow


CALLS = ["c1", "c2", "c3", "c4"]


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def transcript_calls(result: dict[str, Any]) -> list[str]:
    return [
        c["id"] for m in result["messages"] if m["role"] == "assistant" for c in m["tool_calls"]
    ]


def assert_complete_in_order(result: dict[str, Any]) -> None:
    assert result["status"] == "succeeded" and result["finish_reason"] == "stop"
    assert transcript_calls(result) == CALLS
    assert [r["tool_call_id"] for r in tool_results(result)] == CALLS
    roles = [m["role"] for m in result["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "tool", "tool", "assistant"]


def terminal_rows(app: App, call_id: str) -> list[tuple[str, str | None]]:
    return [row for row in app.ledger(call_id) if row[0] != "started"]


def test_a_run_without_crash_executes_each_call_once_and_a_replay_executes_nothing(
    sqlite_app: App,
) -> None:
    # One uncrashed run serves both checks (a DBOS process launch each is the expensive part).
    first = sqlite_app.run("run")
    assert_complete_in_order(first)
    assert sqlite_app.begins() == dict.fromkeys(CALLS, 1)
    for call in CALLS:
        assert sqlite_app.ledger(call) == [("started", None), ("finished", None)]
    again = sqlite_app.run("recover")
    assert again == first
    assert sqlite_app.begins() == dict.fromkeys(CALLS, 1)
    assert len(sqlite_app.rows("ledger.jsonl")) == 2 * len(CALLS)
    assert len(sqlite_app.rows("model.jsonl")) == 3


def test_kill_before_a_model_step_resumes_without_rerunning_finished_calls(
    sqlite_app: App,
) -> None:
    sqlite_app.kill_at("model-1", "run")
    result = sqlite_app.run("recover")
    assert_complete_in_order(result)
    assert sqlite_app.begins() == dict.fromkeys(CALLS, 1)
    for call in CALLS:
        assert sqlite_app.ledger(call) == [("started", None), ("finished", None)]
    turns = [r["turn"] for r in sqlite_app.rows("model.jsonl")]
    assert turns == [0, 1, 1, 2]


def test_an_interrupted_side_effect_is_never_run_again(sqlite_app: App) -> None:
    sqlite_app.kill_at("c4", "run")
    result = sqlite_app.run("recover")
    assert_complete_in_order(result)
    assert sqlite_app.begins()["c4"] == 1 and sqlite_app.ends()["c4"] == 0
    c4 = tool_results(result)[3]
    assert c4["error"]["code"] == OUTCOME_UNKNOWN
    assert c4["error"]["message"] == OUTCOME_UNKNOWN_MESSAGE
    assert terminal_rows(sqlite_app, "c4") == [("error", OUTCOME_UNKNOWN)]
    for call in ["c1", "c2"]:
        assert sqlite_app.begins()[call] == 1
        assert terminal_rows(sqlite_app, call) == [("finished", None)]
    # c3 (idempotent) may have written its row and died before its result was recorded, then
    # run again: the keyed ledger (row ids unique) keeps one outcome row
    assert set(terminal_rows(sqlite_app, "c3")) == {("finished", None)}
    assert len(sqlite_app.outcomes("c3")) == 1


def test_an_interrupted_idempotent_call_completes(sqlite_app: App) -> None:
    sqlite_app.kill_at("c3", "run")
    result = sqlite_app.run("recover")
    assert_complete_in_order(result)
    assert sqlite_app.begins()["c3"] == 2 and sqlite_app.ends()["c3"] == 1
    assert tool_results(result)[2]["error"] is None
    assert tool_results(result)[2]["content"] == [{"kind": "text", "text": "put:c3"}]
    assert terminal_rows(sqlite_app, "c3") == [("finished", None)]
    assert sqlite_app.begins()["c1"] == 1 and sqlite_app.begins()["c2"] == 1
    assert sqlite_app.begins()["c4"] == 1


def test_an_interrupted_read_only_call_completes(sqlite_app: App) -> None:
    sqlite_app.kill_at("c2", "run", "--concurrency", "1")
    result = sqlite_app.run("recover", "--concurrency", "1")
    assert_complete_in_order(result)
    assert sqlite_app.begins()["c2"] == 2 and sqlite_app.ends()["c2"] == 1
    assert sqlite_app.begins()["c1"] == 1
    assert terminal_rows(sqlite_app, "c2") == [("finished", None)]


def test_a_turn_beyond_the_round_limit_is_refused_once_even_after_a_crash(sqlite_app: App) -> None:
    sqlite_app.kill_at("model-1", "run", "--max-rounds", "1")
    result = sqlite_app.run("recover", "--max-rounds", "1")
    assert result["finish_reason"] == "tool_round_limit"
    refused = tool_results(result)[2:]
    assert [r["error"]["code"] for r in refused] == ["tool_round_limit"] * 2
    assert sqlite_app.begins() == {"c1": 1, "c2": 1}
    for call in ["c3", "c4"]:
        assert sqlite_app.ledger(call) == [("blocked", "tool_round_limit")]
