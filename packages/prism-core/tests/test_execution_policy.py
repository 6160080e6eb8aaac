"""The execution-policy seam: tools ask before a side effect; anything but an allow denies."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    AbortController,
    ExecutionAction,
    ExecutionDecision,
    ExecutionDeniedError,
    assert_execution_allowed,
)

pytestmark = pytest.mark.anyio

ACTION = ExecutionAction(kind="write", operation="write", paths=("/w/a.txt",), risk="medium")


class Policy:
    """Records the actions it sees and answers with ``outcome`` (sync or async)."""

    def __init__(self, outcome: object, *, is_async: bool = False) -> None:
        self.outcome = outcome
        self.is_async = is_async
        self.seen: list[ExecutionAction] = []

    def check(self, action: ExecutionAction) -> Any:
        self.seen.append(action)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        if self.is_async:

            async def answer() -> object:
                return self.outcome

            return answer()
        return self.outcome


async def test_no_policy_allows_unchanged() -> None:
    assert await assert_execution_allowed(None, ACTION) is ACTION


@pytest.mark.parametrize("is_async", [False, True])
async def test_allowed_decision_returns_the_action(is_async: bool) -> None:
    policy = Policy(ExecutionDecision(allowed=True), is_async=is_async)
    assert await assert_execution_allowed(policy, ACTION) == ACTION
    assert policy.seen == [ACTION]


@pytest.mark.parametrize(
    ("outcome", "fragment"),
    [
        (ExecutionDecision(allowed=False, reason="outside the workspace"), "outside the workspace"),
        (ExecutionDecision(allowed=False), "write write denied"),
        (True, "returned bool, not an ExecutionDecision"),
        (None, "returned NoneType, not an ExecutionDecision"),
        (OSError("policy store offline"), "OSError: policy store offline"),
    ],
)
async def test_anything_but_an_allowed_decision_denies(outcome: object, fragment: str) -> None:
    with pytest.raises(ExecutionDeniedError, match=fragment):
        await assert_execution_allowed(Policy(outcome), ACTION)


async def test_modified_fields_replace_the_action_and_unknown_fields_deny() -> None:
    rewrite = ExecutionDecision(allowed=True, modified={"paths": ["/w/b.txt"], "risk": "low"})
    changed = await assert_execution_allowed(Policy(rewrite), ACTION)
    assert changed.paths == ("/w/b.txt",)
    assert changed.risk == "low"
    assert changed.kind == "write"
    bogus = ExecutionDecision(allowed=True, modified={"sudo": True})
    with pytest.raises(ExecutionDeniedError, match=r"unknown action fields \['sudo'\]"):
        await assert_execution_allowed(Policy(bogus), ACTION)


async def test_signal_reaches_the_policy_and_an_aborted_one_denies_first() -> None:
    controller = AbortController()
    policy = Policy(ExecutionDecision(allowed=True))
    await assert_execution_allowed(policy, ACTION, signal=controller.signal)
    assert policy.seen[0].signal is controller.signal
    controller.abort("stop")
    late = Policy(ExecutionDecision(allowed=True))
    with pytest.raises(ExecutionDeniedError, match="aborted"):
        await assert_execution_allowed(late, ACTION, signal=controller.signal)
    assert late.seen == []
