"""The shared test doubles: a policy-checked file tool asks inside the call; a hanging tool
reports that it started and cleans up when cancelled; ``abort_after`` stops a running call."""

from __future__ import annotations

import anyio
import pytest

from prism.core import (
    AbortController,
    ToolCall,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
    render_tool_result,
)
from prism.core.testing import (
    ReadsOnlyPolicy,
    abort_after,
    hanging_tool,
    policy_checked_tool,
    scaled,
)

pytestmark = pytest.mark.anyio


async def test_the_policy_allows_reads_refuses_writes_and_records_both() -> None:
    policy = ReadsOnlyPolicy()
    registry = {name: policy_checked_tool(name, policy) for name in ("read", "write")}
    with anyio.fail_after(scaled(10)):
        read = await dispatch_tool_call(
            ToolCall(id="r", name="read", arguments={}), registry=registry
        )
        write = await dispatch_tool_call(
            ToolCall(id="w", name="write", arguments={}), registry=registry
        )
    assert read.error is None and render_tool_result(read) == "read done"
    assert write.error is not None and "writes need a human" in write.error.message
    assert policy.asked == ["read", "write"]


async def test_a_cancelled_hanging_tool_says_it_started_and_cleans_up() -> None:
    entered = anyio.Event()
    finished: list[str] = []
    registry = {"hang": hanging_tool("hang", entered=entered.set, cleaned_up=finished)}

    async def dispatch() -> None:
        await dispatch_tool_call(ToolCall(id="h", name="hang", arguments={}), registry=registry)

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(dispatch)
            await entered.wait()
            group.cancel_scope.cancel()
    assert finished == ["cleaned up"]


async def test_abort_after_stops_a_running_call_with_its_reason() -> None:
    entered = anyio.Event()
    finished: list[str] = []
    registry = {"hang": hanging_tool("hang", entered=entered.set, cleaned_up=finished)}
    controller = AbortController()

    async def stop_once_running() -> None:
        await entered.wait()
        await abort_after(controller, 0.01, "user pressed stop")

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(stop_once_running)
            [result] = await dispatch_tool_calls_in_order(
                [ToolCall(id="h", name="hang", arguments={})],
                registry=registry,
                signal=controller.signal,
                abort_grace_seconds=0.05,
            )
    assert controller.signal.aborted
    assert result.error is not None and "user pressed stop" in render_tool_result(result)
    assert finished == ["cleaned up"]
