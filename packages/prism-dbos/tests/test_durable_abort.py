"""The batch abort policy holds in durable dispatch, and its outcome is recorded like any result."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import App

# Real DBOS processes launched, killed and recovered: deselect locally with -m 'not slow'.
pytestmark = pytest.mark.slow


def test_an_abort_cancels_after_the_grace_and_the_outcome_replays_unchanged(
    sqlite_app: App,
) -> None:
    first = sqlite_app.run("abort", "--concurrency", "1")["results"]
    assert [r["tool_call_id"] for r in first] == ["x1", "x2", "x3"]
    assert first[0]["error"] is None
    assert first[1]["error"]["code"] == "aborted"
    assert "cancelled after abort" in first[1]["error"]["message"]
    assert first[2]["error"]["code"] == "aborted"
    assert sqlite_app.ledger("x3") == [("blocked", "aborted")]
    replayed = sqlite_app.run("abort")["results"]
    assert replayed == first
    assert sqlite_app.begins() == {"x1": 1, "x2": 1}
