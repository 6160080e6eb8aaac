"""Shared helpers for the policy tests: a shell action as the shell tool sends it; a decision."""

from __future__ import annotations

import inspect
from typing import Any

import anyio

from prism.core import ExecutionAction, ExecutionDecision
from prism.core.testing import scaled


def shell(root: str, command: str, **metadata: str) -> ExecutionAction:
    """``command`` to run in ``root`` (the only path it names), with ``metadata``."""
    return ExecutionAction(
        kind="shell",
        operation="execute",
        command=command,
        cwd=root,
        paths=(root,),
        metadata=metadata,
    )


async def decide(policy: Any, action: ExecutionAction) -> ExecutionDecision:
    """The policy's decision on ``action``, awaited (under a deadline) when it asks the host."""
    outcome = policy.check(action)
    if inspect.isawaitable(outcome):
        with anyio.fail_after(scaled(10)):
            outcome = await outcome
    assert isinstance(outcome, ExecutionDecision)
    return outcome
