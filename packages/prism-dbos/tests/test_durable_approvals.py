"""Approvals as durable waits: they survive a restart, arrive from another process, time out
durably, and are decided once."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import App

# Real DBOS processes launched, killed and recovered: deselect locally with -m 'not slow'.
pytestmark = pytest.mark.slow

APPROVAL = ["--script", "approval"]


def tool_results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def wait_for_request(app: App) -> dict[str, Any]:
    awaiting: dict[str, Any] = json.loads(app.call("await-approval", "--run-id", "run-1"))
    return awaiting


def test_an_approval_sent_from_another_process_after_a_restart_resumes_the_run(
    sqlite_app: App,
) -> None:
    first = sqlite_app.spawn("run", *APPROVAL, "--approval-timeout", "600")
    awaiting = wait_for_request(sqlite_app)
    assert awaiting["call_id"] == "a2" and awaiting["index"] == 1
    assert (awaiting["name"], awaiting["arguments"]) == ("deploy", {"text": "a2"})
    sqlite_app.kill(first)
    recovering = sqlite_app.spawn("recover", *APPROVAL, "--approval-timeout", "600")
    assert wait_for_request(sqlite_app)["call_id"] == "a2"
    assert sqlite_app.approve("a2", "--approved") == "delivered"
    result = sqlite_app.finish(recovering)
    results = tool_results(result)
    assert [r["tool_call_id"] for r in results] == ["a1", "a2"]
    assert results[1]["error"] is None and results[1]["content"][0]["text"] == "deploy:a2"
    assert sqlite_app.begins() == {"a1": 1, "a2": 1}
    assert [row[0] for row in sqlite_app.ledger("a2")] == ["started", "finished"]


def test_a_denial_blocks_the_call_and_a_later_approval_changes_nothing(sqlite_app: App) -> None:
    running = sqlite_app.spawn("run", *APPROVAL, "--approval-timeout", "600")
    wait_for_request(sqlite_app)
    sqlite_app.call("approve", "--run-id", "run-1", "--call-id", "a2")
    sqlite_app.call("approve", "--run-id", "run-1", "--call-id", "a2", "--approved")
    result = sqlite_app.finish(running)
    denied = tool_results(result)[1]
    assert denied["error"]["code"] == "permission_denied"
    assert denied["error"]["message"].startswith("Approval denied")
    assert "a2" not in sqlite_app.begins()
    assert sqlite_app.ledger("a2") == [("blocked", "permission_denied")]


def test_the_approval_timeout_is_durable_across_a_restart(sqlite_app: App) -> None:
    started = time.monotonic()
    first = sqlite_app.spawn("run", *APPROVAL, "--approval-timeout", "4")
    wait_for_request(sqlite_app)
    sqlite_app.kill(first)
    time.sleep(max(0.0, 4.5 - (time.monotonic() - started)))
    # The recovered wait asks for a fresh 600 s, but the recorded deadline has passed.
    result = sqlite_app.run("recover", *APPROVAL, "--approval-timeout", "600")
    timed_out = tool_results(result)[1]
    assert timed_out["error"]["code"] == "permission_denied"
    assert "timed out" in timed_out["error"]["message"]
    assert "a2" not in sqlite_app.begins()
