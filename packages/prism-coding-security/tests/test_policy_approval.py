"""Approval through the policy: what is cached, for whom, for how long, and what never is."""

from __future__ import annotations

import inspect
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_security import CodingApprovalPolicy
from prism.coding_security._approval import MAX_CACHED_APPROVALS
from prism.core import AbortController, ExecutionAction
from prism.core.testing import abort_after, scaled

from ._policy_calls import decide, shell

pytestmark = pytest.mark.anyio


class Host:
    """Answers per ``mode``: "yes" (True), "no" (False), "hang", "raise", or a literal value."""

    def __init__(self, mode: object = "yes") -> None:
        self.mode = mode
        self.asked = 0

    async def __call__(self, request: Any) -> Any:
        self.asked += 1
        if self.mode == "hang":
            await anyio.sleep_forever()
        if self.mode == "raise":
            raise RuntimeError("prompt crashed")
        return {"yes": True, "no": False}.get(self.mode, self.mode)  # type: ignore[call-overload]


@pytest.fixture
def root(tmp_path: Path) -> str:
    real = tmp_path.resolve() / "root"
    real.mkdir()
    return str(real)


async def allowed(policy: Any, action: ExecutionAction) -> bool:
    return (await decide(policy, action)).allowed


async def test_no_cache_asks_every_time(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host)
    for _ in range(3):
        assert await allowed(policy, shell(root, "pytest -q", run_id="r", session_id="s"))
    assert host.asked == 3


async def test_run_cache_is_scoped_to_the_run(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")
    assert await allowed(policy, shell(root, "git push origin main", run_id="r1", session_id="s"))
    assert await allowed(
        policy, shell(root, "git push origin main", run_id="r1", session_id="other")
    )
    assert host.asked == 1
    host.mode = "no"
    assert not await allowed(
        policy, shell(root, "git push origin main", run_id="r2", session_id="s")
    )
    assert not await allowed(policy, shell(root, "git push origin main", session_id="s"))
    assert host.asked == 3


async def test_session_cache_is_scoped_to_the_session(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="session")
    assert await allowed(policy, shell(root, "git push origin main", run_id="r1", session_id="s1"))
    assert await allowed(policy, shell(root, "git push origin main", run_id="r2", session_id="s1"))
    assert host.asked == 1
    host.mode = "no"
    assert not await allowed(
        policy, shell(root, "git push origin main", run_id="r1", session_id="s2")
    )
    assert host.asked == 2


async def test_cache_key_is_the_exact_action(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")
    assert await allowed(policy, shell(root, "git push origin main", run_id="r"))
    host.mode = "no"
    for variant in (
        "git push origin main && git push origin dev",
        "git push origin main; pytest -q",
        "git push --force origin main",
        "git push origin main ",
    ):
        assert not await allowed(policy, shell(root, variant, run_id="r")), variant
    sub = Path(root) / "sub"
    sub.mkdir()
    assert not await allowed(policy, shell(str(sub), "git push origin main", run_id="r"))
    assert host.asked == 6
    assert await allowed(policy, shell(root, "git push origin main", run_id="r"))
    assert host.asked == 6


async def test_cache_never_overrides_a_deny(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")
    assert await allowed(policy, shell(root, "git push origin main", run_id="r"))
    assert not await allowed(policy, shell(root, "git push origin main; rm -rf ~", run_id="r"))
    assert host.asked == 1


async def test_lru_evicts_the_least_recently_used(root: str) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")

    def action(index: int) -> ExecutionAction:
        return ExecutionAction(
            kind="network", operation=f"fetch-{index}", paths=(root,), metadata={"run_id": "r"}
        )

    for index in range(MAX_CACHED_APPROVALS):
        assert await allowed(policy, action(index))
    assert host.asked == MAX_CACHED_APPROVALS
    assert await allowed(policy, action(0))  # refresh 0: 1 is now the oldest
    assert await allowed(policy, action(MAX_CACHED_APPROVALS))  # evicts 1
    asked = host.asked
    assert await allowed(policy, action(0))
    assert await allowed(policy, action(2))
    assert host.asked == asked
    assert await allowed(policy, action(1))
    assert host.asked == asked + 1


@pytest.mark.parametrize("mode", ["no", "raise", 1, "True", None])
async def test_refusals_errors_and_non_true_answers_are_not_cached(root: str, mode: object) -> None:
    host = Host(mode)
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")
    assert not await allowed(policy, shell(root, "pytest -q", run_id="r"))
    host.mode = "yes"
    assert await allowed(policy, shell(root, "pytest -q", run_id="r"))
    assert host.asked == 2


async def test_timeout_denies_fast_and_is_not_cached(root: str) -> None:
    host = Host("hang")
    policy = CodingApprovalPolicy(
        roots=[root], approve=host, approval_cache="run", approval_timeout_seconds=0.2
    )
    started = time.monotonic()
    outcome = policy.check(shell(root, "pytest -q", run_id="r"))
    assert inspect.isawaitable(outcome)
    with anyio.fail_after(scaled(5)):
        decision = await outcome
    assert not decision.allowed
    assert "timed out" in (decision.reason or "")
    assert time.monotonic() - started < scaled(2)
    host.mode = "yes"
    assert await allowed(policy, shell(root, "pytest -q", run_id="r"))
    assert host.asked == 2


async def test_abort_denies_at_once_and_is_not_cached(root: str) -> None:
    host = Host("hang")
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="run")
    controller = AbortController()
    action = shell(root, "pytest -q", run_id="r")
    started = time.monotonic()
    with anyio.fail_after(scaled(5)):
        async with anyio.create_task_group() as group:
            group.start_soon(abort_after, controller, 0.1, "stop")
            from prism.core import ExecutionDeniedError, assert_execution_allowed

            with pytest.raises(ExecutionDeniedError, match="aborted"):
                await assert_execution_allowed(policy, action, signal=controller.signal)
    assert time.monotonic() - started < scaled(2)
    host.mode = "yes"
    assert await allowed(policy, shell(root, "pytest -q", run_id="r"))
    assert host.asked == 2
