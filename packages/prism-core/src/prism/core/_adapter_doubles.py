"""Test doubles the packages' tests share: a policy-checked file tool, a hanging tool, and a host
that presses stop after a delay."""

from __future__ import annotations

from collections.abc import Callable

from ._abort import AbortController
from ._backend import sleep
from ._execution import ExecutionAction, ExecutionDecision, assert_execution_allowed
from ._types import JsonObject, ToolDefinition, ToolExecutionContext

__all__ = ["ReadsOnlyPolicy", "abort_after", "hanging_tool", "policy_checked_tool"]


class ReadsOnlyPolicy:
    """An execution policy that allows ``read`` and refuses every other operation ("writes need
    a human"), recording each operation it was asked about in ``asked``."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        self.asked.append(action.operation)
        return ExecutionDecision(allowed=action.operation == "read", reason="writes need a human")


def policy_checked_tool(operation: str, policy: ReadsOnlyPolicy) -> ToolDefinition:
    """A tool named ``operation`` that asks ``policy`` about a file ``operation`` inside the call
    (as the coding tools do) and answers ``"<operation> done"`` when allowed."""

    async def execute(args: JsonObject, ctx: ToolExecutionContext) -> str:
        await assert_execution_allowed(policy, ExecutionAction(kind="file", operation=operation))
        return f"{operation} done"

    return ToolDefinition(name=operation, execute=execute)


def hanging_tool(
    name: str, *, entered: Callable[[], object], cleaned_up: list[str], seconds: float = 30.0
) -> ToolDefinition:
    """A tool that calls ``entered()``, then waits ``seconds`` (until cancelled, in a test) and
    appends ``"cleaned up"`` to ``cleaned_up`` however it ends."""

    async def execute(args: JsonObject, ctx: ToolExecutionContext) -> str:
        entered()
        try:
            await sleep(seconds)
        finally:
            cleaned_up.append("cleaned up")
        return "never"

    return ToolDefinition(name=name, execute=execute)


async def abort_after(
    controller: AbortController, seconds: float, reason: object | None = None
) -> None:
    """Wait ``seconds``, then ``controller.abort(reason)``: a host pressing stop while a call
    runs (start it in the test's task group, beside the call)."""
    await sleep(seconds)
    controller.abort(reason)
