"""prism-core's threat rows with the real Agents SDK Runner as the dispatch subject.

Each row's call is made by the SDK's ``ScriptedModel`` (the only fake: the LLM) and runs through
``prism_function_tools`` inside ``Runner.run``; the adapter hands the row Prism's ``ToolResult``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import anyio
import pytest
from agents.exceptions import ModelBehaviorError

from prism.conformance import (
    ConformanceSubjects,
    default_subjects,
    make_conformance_tests,
)
from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolLookup,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
)
from prism.core.testing import scaled
from prism.openai_agents import prism_function_tools

from .conftest import Script, call

FRAMEWORK_REFUSES_UNKNOWN_TOOLS = ("16", "E12")
"""Rows that call a tool the registry does not hold: the SDK refuses an unknown tool name itself
(``ModelBehaviorError``, ending the run) before any tool sees the call, so Prism's
``unknown_tool`` result never exists. ``test_unknown_tools_never_reach_a_handler`` pins that."""

test_conformance = make_conformance_tests(
    package="prism-core", exclude=FRAMEWORK_REFUSES_UNKNOWN_TOOLS, backends=("asyncio",)
)


class _RecordingPipeline(ToolPipeline):
    """The pipeline itself, keeping every ToolResult it produced for the row to inspect."""

    async def dispatch(
        self,
        call: ToolCall,
        context: ToolExecutionContext | None = None,
        *,
        registry: ToolLookup | None = None,
    ) -> ToolResult:
        result = await super().dispatch(call, context, registry=registry)
        RESULTS.append(result)
        return result


RESULTS: list[ToolResult] = []


async def dispatch_through_openai_agents(
    tool_call: ToolCall,
    *,
    registry: ToolLookup,
    context: ToolExecutionContext | None = None,
    **gates: Any,
) -> ToolResult:
    """``dispatch_tool_call``'s signature, carried out by an Agents SDK run."""
    RESULTS.clear()
    pipeline = _RecordingPipeline(registry=registry, **gates)
    signal = context.signal if context is not None else None
    session = context.session_id if context is not None else ""
    tools = prism_function_tools(pipeline, session_id=session, signal=signal)
    raw = json.dumps(dict(tool_call.arguments), default=str)
    await Script([call(tool_call.name, tool_call.id, raw)]).run(tools)
    if not RESULTS:
        raise AssertionError(f"the Agents SDK never passed call {tool_call.id!r} to Prism")
    return RESULTS[-1]


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    return dataclasses.replace(default_subjects(), dispatch=dispatch_through_openai_agents)


@pytest.mark.anyio
async def test_unknown_tools_never_reach_a_handler() -> None:
    ran: list[str] = []

    async def echo(args: Any, ctx: ToolExecutionContext) -> str:
        ran.append(ctx.tool_call_id)
        return "echo"

    pipeline = ToolPipeline(registry=ToolRegistry([ToolDefinition(name="echo", execute=echo)]))
    with anyio.fail_after(scaled(20)), pytest.raises(ModelBehaviorError, match="missing"):
        await Script([call("missing", "u1"), call("echo", "e1")]).run(
            prism_function_tools(pipeline)
        )
    assert ran == []
