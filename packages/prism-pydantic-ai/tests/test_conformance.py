"""prism-core's threat rows with a real pydantic-ai Agent as the dispatch subject.

Each row's call is made by a scripted model (the only fake: the LLM) and runs through
``PrismToolset`` inside ``Agent.run``; the adapter hands the row the ``ToolResult`` Prism produced.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent, RunContext

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
from prism.pydantic_ai import PrismToolset

from .conftest import Script, call

FRAMEWORK_REFUSES_UNKNOWN_TOOLS = ("16", "E12")
"""Rows that call a tool the registry does not hold: pydantic-ai answers an unknown tool name
itself (a retry prompt listing the real tools) before any toolset sees the call, so Prism's
``unknown_tool`` result never exists. ``test_unknown_tools_never_reach_a_handler`` pins that."""

test_conformance = make_conformance_tests(
    package="prism-core", exclude=FRAMEWORK_REFUSES_UNKNOWN_TOOLS, backends=("asyncio",)
)


class _Recording(PrismToolset):
    """A PrismToolset that keeps the last ToolResult for the row to inspect."""

    result: ToolResult | None = None

    async def dispatch(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]
    ) -> ToolResult:
        self.result = await super().dispatch(name, tool_args, ctx)
        return self.result


async def dispatch_through_pydantic_ai(
    tool_call: ToolCall,
    *,
    registry: ToolLookup,
    context: ToolExecutionContext | None = None,
    **gates: Any,
) -> ToolResult:
    """``dispatch_tool_call``'s signature, carried out by a pydantic-ai agent run."""
    signal = context.signal if context is not None else None
    session = context.session_id if context is not None else ""
    toolset = _Recording(
        ToolPipeline(registry=registry, **gates), session_id=session, signal=signal
    )
    script = Script([call(tool_call.name, tool_call.id, **tool_call.arguments)])
    await Agent(script.model(), toolsets=[toolset]).run("conformance")
    if toolset.result is None:
        raise AssertionError(f"pydantic-ai never passed call {tool_call.id!r} to Prism")
    return toolset.result


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    return dataclasses.replace(default_subjects(), dispatch=dispatch_through_pydantic_ai)


@pytest.mark.anyio
async def test_unknown_tools_never_reach_a_handler_and_the_model_is_told() -> None:
    ran: list[str] = []

    async def echo(args: Any, ctx: ToolExecutionContext) -> str:
        ran.append(ctx.tool_call_id)
        return "echo"

    registry = ToolRegistry([ToolDefinition(name="echo", execute=echo)])
    toolset = _Recording(ToolPipeline(registry=registry))
    script = Script([call("missing", "u1")], [call("echo", "e1")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[toolset]).run("go")
    assert ran == ["e1"]
    assert "missing" in script.retries["u1"] and "echo" in script.retries["u1"]
