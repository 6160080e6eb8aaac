"""The peer side of the dispatch benchmark: pydantic-ai and openai-agents doing what Prism does
in each section (one tool call, an agent run of K calls, 64 x 20 ms tools in one turn).

Both peers validate arguments on every call (pydantic-ai with a pydantic validator built from the
function signature, openai-agents by parsing the JSON and validating it with its pydantic model),
which is why Prism's judged dispatch row is the one with argument validation.
"""

from __future__ import annotations

import asyncio
import time

from _common import Batch, time_async_calls
from _dispatch_prism import BATCH, SLEEP, Plan
from agents import FunctionTool, RunContextWrapper, function_tool
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall
from pydantic_ai import Agent as PaiAgent
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart
from pydantic_ai.messages import ModelResponse as PaiResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tool_manager import ToolManager
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage


async def pai_noop() -> None:
    """The pydantic-ai no-op tool."""


async def pai_function_toolset_subject(plan: Plan) -> Batch:
    """pydantic-ai ``ToolManager`` over a ``FunctionToolset``, prepared by ``for_run_step``."""
    toolset: FunctionToolset[None] = FunctionToolset()
    toolset.add_function(pai_noop, name="noop")
    model = FunctionModel(lambda messages, info: PaiResponse(parts=[TextPart("done")]))
    ctx = RunContext(deps=None, model=model, usage=RunUsage(), run_step=1)
    manager = await ToolManager(toolset).for_run_step(ctx)
    call = ToolCallPart(tool_name="noop", args={}, tool_call_id="call_1")
    assert await manager.handle_call(call) is None

    async def batch() -> float:
        return await time_async_calls(lambda: manager.handle_call(call), plan.calls)

    return batch


def pai_agent_subject(plan: Plan) -> Batch:
    """The ``ToolManager`` a real ``Agent.run`` builds (default capabilities), timed mid-run.

    The model calls a ``probe`` tool that times ``ctx.tool_manager.handle_call`` on the no-op
    tool: the nested path pydantic-ai's own wrapper toolsets dispatch through.
    """
    seconds: list[float] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        if len(messages) == 1:
            return PaiResponse(parts=[ToolCallPart(tool_name="probe", args={}, tool_call_id="p")])
        return PaiResponse(parts=[TextPart("done")])

    agent: PaiAgent[None, str] = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="noop")(pai_noop)

    @agent.tool
    async def probe(ctx: RunContext[None]) -> str:
        manager = ctx.tool_manager
        assert manager is not None
        call = ToolCallPart(tool_name="noop", args={}, tool_call_id="call_1")
        assert await manager.handle_call(call) is None
        seconds.append(await time_async_calls(lambda: manager.handle_call(call), plan.calls))
        return "ok"

    async def batch() -> float:
        result = await agent.run("probe")
        assert result.output == "done"
        return seconds[-1]

    return batch


@function_tool
async def oa_noop() -> None:
    """No-op."""


def openai_agents_subject(plan: Plan, per_call_context: bool) -> Batch:
    """openai-agents ``FunctionTool.on_invoke_tool`` with a real ``ToolContext``: built once, or
    per call with ``ToolContext.from_agent_context`` as its runner does for every tool call."""
    tool: FunctionTool = oa_noop
    wrapper: RunContextWrapper[None] = RunContextWrapper(context=None)
    raw = ResponseFunctionToolCall(
        arguments="{}", call_id="call_1", name="oa_noop", type="function_call"
    )
    shared = ToolContext.from_agent_context(wrapper, "call_1", tool_call=raw)

    async def fresh() -> object:
        ctx = ToolContext.from_agent_context(wrapper, raw.call_id, tool_call=raw)
        return await tool.on_invoke_tool(ctx, raw.arguments)

    async def batch() -> float:
        if per_call_context:
            return await time_async_calls(fresh, plan.calls)
        return await time_async_calls(lambda: tool.on_invoke_tool(shared, "{}"), plan.calls)

    return batch


def pai_loop_subject(k: int, runs: int) -> Batch:
    """Mean seconds per pydantic-ai ``Agent.run`` whose ``FunctionModel`` asks for ``k`` calls."""
    parts = [ToolCallPart(tool_name="noop", args={}, tool_call_id=f"call_{i}") for i in range(k)]

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        return PaiResponse(parts=list(parts) if len(messages) == 1 else [TextPart("done")])

    agent = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="noop")(pai_noop)

    async def batch() -> float:
        start = time.perf_counter()
        for _ in range(runs):
            assert (await agent.run("go")).output == "done"
        return (time.perf_counter() - start) / runs

    return batch


def pai_batch_subject() -> Batch:
    """Seconds per pydantic-ai ``Agent.run`` whose model asks for 64 x 20 ms tools in one turn
    (asyncio only: the tools sleep with ``asyncio.sleep``)."""
    parts = [ToolCallPart(tool_name="sleep20", args={}, tool_call_id=f"c{i}") for i in range(BATCH)]

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        return PaiResponse(parts=list(parts) if len(messages) == 1 else [TextPart("done")])

    async def sleep20() -> None:
        await asyncio.sleep(SLEEP)

    agent = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="sleep20")(sleep20)

    async def batch() -> float:
        start = time.perf_counter()
        assert (await agent.run("go")).output == "done"
        return time.perf_counter() - start

    return batch
