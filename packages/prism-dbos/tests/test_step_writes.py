"""What a durable turn writes: the fewest recorded steps that keep "never run a side effect
twice" — a record before a side-effecting handler starts, then the recorded result — and no
more. In the agent loop the record before is the model request step that produced the calls
(nothing of its own); a bare durable batch records one ``started`` marker for all its calls.

Each recorded DBOS step is one database write (one ``operation_outputs`` row, one commit);
a raw DBOS step is one. docs/durable.md ("Performance") explains the cost this sets.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from dbos import DBOS, SetWorkflowID

from prism.core import TextContent, ToolCall, ToolDefinition, ToolRegistry
from prism.core.agent import LoopOptions, ModelRequest, ModelResponse
from prism.dbos import (
    DurableAgent,
    DurableToolset,
    durable_dispatch_tool_calls_in_order,
    register_toolset,
)

pytestmark = pytest.mark.parametrize("anyio_backend", ["asyncio"])


async def _ok(arguments: Any, context: Any) -> str:
    return "ok"


TOOLS = [
    ToolDefinition(name="act", execute=_ok, parameters={"type": "object"}),
    ToolDefinition(name="look", execute=_ok, parameters={"type": "object"}, read_only=True),
]
TOOLSET = register_toolset(
    DurableToolset(name="step-writes", tools=ToolRegistry(TOOLS), tool_concurrency=4)
)


class _OneTurn:
    """A scripted model: the calls named in the prompt, then a final text."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if len(request.messages) > 1:
            return ModelResponse(content=(TextContent(text="done"),))
        names = str(getattr(request.messages[0], "content", "")).split()
        calls = tuple(ToolCall(id=f"c{i}", name=n, arguments={}) for i, n in enumerate(names))
        return ModelResponse(tool_calls=calls)


AGENT = DurableAgent(
    name="step-writes-agent",
    provider=_OneTurn(),
    model="scripted",
    tools=TOOLS,
    loop=LoopOptions(tool_concurrency=4),
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


async def _agent_steps(names: list[str]) -> list[str]:
    run = f"writes-agent-{os.urandom(8).hex()}"
    result = await AGENT.run(" ".join(names), run_id=run)
    assert result.status == "succeeded"
    steps = await DBOS.list_workflow_steps_async(run)
    return sorted(step["function_name"] for step in steps)


@pytest.mark.anyio
async def test_a_one_call_side_effecting_agent_turn_writes_its_model_step_and_its_result(
    durable_host: None,
) -> None:
    # the model step that produced the call is its record before the handler: no marker
    assert await _agent_steps(["act"]) == ["prism.call"] + ["prism.model"] * 2


@pytest.mark.anyio
async def test_an_agent_turn_of_many_side_effecting_calls_writes_no_marker(
    durable_host: None,
) -> None:
    steps = await _agent_steps(["act"] * 6 + ["look"])
    assert steps == ["prism.call"] * 7 + ["prism.model"] * 2


@pytest.mark.anyio
async def test_a_one_call_side_effecting_batch_writes_a_marker_and_its_result(
    durable_host: None,
) -> None:
    # no step is recorded before a bare batch's calls: it records its own marker
    assert await _steps_of(["act"]) == ["prism.call", "prism.call.started"]


@pytest.mark.anyio
async def test_a_one_call_read_only_turn_writes_only_its_result(durable_host: None) -> None:
    assert await _steps_of(["look"]) == ["prism.call"]


@pytest.mark.anyio
async def test_all_calls_of_a_batch_share_one_marker(durable_host: None) -> None:
    steps = await _steps_of(["act", "act", "look", "act"])
    assert steps == ["prism.call"] * 4 + ["prism.call.started"]
    # calls started after others finished (beyond tool_concurrency) add no marker either
    steps = await _steps_of(["act"] * 9)
    assert steps == ["prism.call"] * 9 + ["prism.call.started"]
