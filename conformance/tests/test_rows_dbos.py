"""Rows E13–E15 fail, precisely, against broken durable agents (and skip on trio).

The broken factories are module-level: the rows load them again in child processes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from prism.conformance import ConformanceSubjects, default_subjects, run_row
from prism.core.agent import Agent, Message, RunResult

pytest.importorskip("prism.dbos")
from prism.dbos import DurableAgent

pytestmark = pytest.mark.slow


def all_idempotent_agent(**options: Any) -> DurableAgent:
    """Claims every tool is idempotent: an interrupted side effect runs again."""
    tools = [dataclasses.replace(t, idempotent=True) for t in options.pop("tools")]
    return DurableAgent(tools=tools, **options)


def forgetful_approval_agent(**options: Any) -> DurableAgent:
    """Drops the approval options: the call runs without waiting for a decision."""
    options.pop("approval", None)
    return DurableAgent(**options)


class NaiveAgent:
    """A plain in-process agent with the durable interface: a restart starts the run over."""

    def __init__(self, **options: Any) -> None:
        for extra in ("name", "approval", "queue"):
            options.pop(extra, None)
        self.agent = Agent(**options)
        self.prompts: dict[str, str] = {}

    async def start(self, prompt: str | list[Message], *, run_id: str) -> str:
        assert isinstance(prompt, str)
        self.prompts[run_id] = prompt
        return run_id

    async def result(self, run_id: str) -> RunResult:
        return await self.agent.run(self.prompts.get(run_id, "go"))


def _check(row: str, factory: Any) -> Any:
    subjects = ConformanceSubjects(durable_agent_factory=factory)
    return run_row(row, subjects, backend="asyncio", timeout_seconds=300)


@pytest.mark.parametrize("row", ["E13", "E14", "E15"])
def test_rows_skip_on_trio(row: str) -> None:
    """Their asyncio half passes in prism-dbos's own tests/test_conformance.py."""
    subjects = default_subjects()
    assert subjects.durable_agent_factory is DurableAgent
    assert run_row(row, subjects, backend="trio", timeout_seconds=60).status == "skipped"


def test_rows_skip_without_a_durable_agent() -> None:
    result = run_row("E13", ConformanceSubjects(), backend="asyncio", timeout_seconds=30)
    assert result.status == "skipped"


def test_e13_fails_when_a_restart_starts_the_run_over() -> None:
    result = _check("E13", NaiveAgent)
    assert result.status == "failed"
    assert "executed again on recovery or replay" in (result.message or "")


def test_e14_fails_when_an_interrupted_side_effect_is_rerun() -> None:
    result = _check("E14", all_idempotent_agent)
    assert result.status == "failed"
    assert "started 2 times" in (result.message or "")


def test_e15_fails_when_the_approval_is_not_awaited() -> None:
    result = _check("E15", forgetful_approval_agent)
    assert result.status == "failed"
    assert "ran before any decision" in (result.message or "")


def test_a_factory_that_cannot_be_loaded_again_fails_with_a_clear_message() -> None:
    result = _check("E14", lambda **options: DurableAgent(**options))
    assert result.status == "failed"
    assert "module-level" in (result.message or "")
