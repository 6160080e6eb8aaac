"""What a durable turn writes: the fewest recorded steps that keep "never run a side effect
twice" (a ``started`` marker before the handler, then the recorded result) and no more.

Each recorded DBOS step is one database write (one ``operation_outputs`` row, one commit);
a raw DBOS step is one. docs/durable.md ("Benchmark") explains the cost this sets.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from dbos import DBOS, SetWorkflowID

from prism.core import ToolCall, ToolDefinition, ToolRegistry
from prism.dbos import DurableToolset, durable_dispatch_tool_calls_in_order, register_toolset

pytestmark = pytest.mark.parametrize("anyio_backend", ["asyncio"])


async def _ok(arguments: Any, context: Any) -> str:
    return "ok"


TOOLSET = register_toolset(
    DurableToolset(
        name="step-writes",
        tools=ToolRegistry(
            [
                ToolDefinition(name="act", execute=_ok, parameters={"type": "object"}),
                ToolDefinition(
                    name="look", execute=_ok, parameters={"type": "object"}, read_only=True
                ),
            ]
        ),
        tool_concurrency=4,
    )
)


@DBOS.workflow(name="prism.test.step_writes")
async def _turn(names: list[str]) -> int:
    calls = [ToolCall(id=f"c{i}", name=name, arguments={}) for i, name in enumerate(names)]
    results = await durable_dispatch_tool_calls_in_order(calls, toolset=TOOLSET)
    return sum(result.error is None for result in results)


async def _steps_of(names: list[str]) -> list[str]:
    run = f"writes-{os.urandom(8).hex()}"
    with SetWorkflowID(run):
        assert await _turn(names) == len(names)
    steps = await DBOS.list_workflow_steps_async(run)
    return sorted(step["function_name"] for step in steps)  # by name: ids are reserved ahead


@pytest.mark.anyio
async def test_a_one_call_side_effecting_turn_writes_a_marker_and_its_result(
    durable_host: None,
) -> None:
    assert await _steps_of(["act"]) == ["prism.call", "prism.call.started"]


@pytest.mark.anyio
async def test_a_one_call_read_only_turn_writes_only_its_result(durable_host: None) -> None:
    assert await _steps_of(["look"]) == ["prism.call"]


@pytest.mark.anyio
async def test_calls_a_turn_starts_together_share_one_marker(durable_host: None) -> None:
    steps = await _steps_of(["act", "act", "look", "act"])
    assert steps == ["prism.call"] * 4 + ["prism.call.started"]
