"""End to end through prism-core dispatch: exclusive shell, ordered batches, rendered results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import create_coding_tools
from prism.core import (
    AbortController,
    ToolCall,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
    render_tool_result,
)
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


def registry(tmp_path: Path) -> Any:
    return ToolRegistry(create_coding_tools(tmp_path))


async def test_a_batch_with_the_shell_runs_in_call_order(tmp_path: Path) -> None:
    calls = [
        ToolCall(id="1", name="write", arguments={"path": "a.txt", "content": "alpha\n"}),
        ToolCall(id="2", name="shell", arguments={"command": "cat a.txt; echo beta >> a.txt"}),
        ToolCall(id="3", name="read", arguments={"path": "a.txt"}),
        ToolCall(
            id="4",
            name="edit",
            arguments={"path": "a.txt", "edits": [{"old_text": "beta", "new_text": "gamma"}]},
        ),
    ]
    with anyio.fail_after(scaled(20)):
        results = await dispatch_tool_calls_in_order(
            calls, registry=registry(tmp_path), tool_concurrency=4
        )
    assert [r.tool_call_id for r in results] == ["1", "2", "3", "4"]
    assert [r.is_error for r in results] == [False] * 4
    assert render_tool_result(results[1]) == "alpha"
    assert render_tool_result(results[2]) == "alpha\nbeta"
    assert (tmp_path / "a.txt").read_text() == "alpha\ngamma\n"


async def test_error_results_render_the_tail_and_the_error(tmp_path: Path) -> None:
    call = ToolCall(
        id="t", name="shell", arguments={"command": "echo partial; sleep 30", "timeout": 0.3}
    )
    with anyio.fail_after(scaled(20)):
        result = await dispatch_tool_call(call, registry=registry(tmp_path))
    assert render_tool_result(result) == (
        "partial\nError: Command timed out after 0.3s; it and everything it started were killed"
    )


async def test_abort_through_dispatch_reaches_the_running_command(tmp_path: Path) -> None:
    controller = AbortController()
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="x", signal=controller.signal
    )
    call = ToolCall(id="x", name="shell", arguments={"command": "echo started; sleep 30"})
    results = []
    with anyio.fail_after(scaled(20)):
        async with anyio.create_task_group() as group:

            async def run() -> None:
                results.append(
                    await dispatch_tool_call(call, registry=registry(tmp_path), context=context)
                )

            group.start_soon(run)
            await anyio.sleep(0.5)
            controller.abort("stop")
    assert results[0].error is not None and results[0].error.code == "aborted"
    assert "started" in render_tool_result(results[0])
