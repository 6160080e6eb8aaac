"""A Prism registry inside the real Agents SDK Runner: every call passes Prism's pipeline."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    ImageContent,
    InMemoryRunLedger,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
)
from prism.core.testing import (
    ReadsOnlyPolicy,
    RecordingTools,
    hanging_tool,
    policy_checked_tool,
    scaled,
)
from prism.jsonschema import create_json_schema_tool_argument_validator
from prism.openai_agents import prism_function_tools

from .conftest import Script, call

pytestmark = pytest.mark.anyio

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}


async def test_the_runner_sees_prism_tools_and_their_results() -> None:
    ran = RecordingTools()
    registry = ToolRegistry(
        [ran.tool("add", description="Add", parameters=ADD_SCHEMA), ran.tool("hidden")]
    )
    pipeline = ToolPipeline(
        registry=registry, gates=ToolGates(tool_filter=ToolFilter(deny=("hidden",)))
    )
    tools = prism_function_tools(pipeline)
    assert [t.name for t in tools] == ["add"]
    assert tools[0].params_json_schema == ADD_SCHEMA
    assert tools[0].description == "Add"
    script = Script([call("add", "c1", a=1, b=2)])
    with anyio.fail_after(scaled(20)):
        result = await script.run(tools)
    assert result.final_output == "done"
    assert script.outputs_seen == {"c1": "add ok"}


async def test_a_denied_call_never_runs_and_the_model_reads_why() -> None:
    ran = RecordingTools()
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(
        registry=ToolRegistry([ran.tool("rm")]),
        gates=ToolGates(
            permission=create_static_permission_policy(deny=["tool:rm:*"]), ledger=ledger
        ),
    )
    script = Script([call("rm", "d1")])
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(pipeline))
    assert ran.calls == []
    assert script.outputs_seen["d1"].startswith("Error: Permission denied")
    assert [(r.tool_call_id, r.status) for r in ledger.records] == [("d1", "blocked")]


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ('{"a": "one", "b": 2}', "/a"),
        ("{not json", "not valid JSON"),
        ('{"a": NaN, "b": 1}', "NaN"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
async def test_invalid_arguments_reach_the_model_as_an_error_and_never_run(
    raw: str, fragment: str
) -> None:
    ran = RecordingTools()
    pipeline = ToolPipeline(
        registry=ToolRegistry([ran.tool("add", parameters=ADD_SCHEMA)]),
        gates=ToolGates(validator=create_json_schema_tool_argument_validator()),
    )
    script = Script([call("add", "v1", raw)])
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(pipeline))
    assert ran.calls == []
    assert script.outputs_seen["v1"].startswith("Error:")
    assert fragment in script.outputs_seen["v1"]


async def test_parallel_calls_overlap_and_an_exclusive_tool_runs_alone() -> None:
    ran = RecordingTools()
    registry = ToolRegistry(
        [ran.tool("slow", delay=0.2), ran.tool("lock", delay=0.1, exclusive=True)]
    )
    script = Script(
        [call("slow", "p1"), call("slow", "p2"), call("slow", "p3")],
        [call("slow", "q1"), call("lock", "x1"), call("slow", "q2"), call("lock", "x2")],
    )
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(ToolPipeline(registry=registry)))
    assert ran.peak == 3
    assert not ran.exclusive_overlap
    assert sorted(ran.calls) == ["p1", "p2", "p3", "q1", "q2", "x1", "x2"]
    assert time.monotonic() - started < scaled(3.0)


async def test_the_execution_policy_decides_inside_the_call() -> None:
    policy = ReadsOnlyPolicy()
    tools = [policy_checked_tool("read", policy), policy_checked_tool("write", policy)]
    pipeline = ToolPipeline(registry=ToolRegistry(tools))
    script = Script([call("read", "r1"), call("write", "w1")])
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(pipeline))
    assert script.outputs_seen["r1"] == "read done"
    assert "writes need a human" in script.outputs_seen["w1"]


async def test_after_the_host_aborts_no_call_starts() -> None:
    ran = RecordingTools()
    controller = AbortController()
    controller.abort("user pressed stop")
    pipeline = ToolPipeline(registry=ToolRegistry([ran.tool("work")]))
    script = Script([call("work", "a1")])
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(pipeline, signal=controller.signal))
    assert ran.calls == []
    assert "user pressed stop" in script.outputs_seen["a1"]


async def test_cancelling_the_run_cancels_a_running_tool() -> None:
    entered = anyio.Event()
    finished: list[str] = []
    hang = hanging_tool("hang", entered=entered.set, cleaned_up=finished)
    pipeline = ToolPipeline(registry=ToolRegistry([hang]))
    script = Script([call("hang", "h1")])
    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(script.run, prism_function_tools(pipeline))
            await entered.wait()
            group.cancel_scope.cancel()
    assert finished == ["cleaned up"]


async def test_images_and_structured_values_reach_the_model() -> None:
    async def picture(args: Any, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult(
            tool_call_id=ctx.tool_call_id,
            name="picture",
            content=(
                TextContent(text="a dot"),
                ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
            ),
        )

    async def stats(args: Any, ctx: ToolExecutionContext) -> dict[str, int]:
        return {"files": 3}

    registry = ToolRegistry(
        [
            ToolDefinition(name="picture", execute=picture),
            ToolDefinition(name="stats", execute=stats),
        ]
    )
    script = Script([call("picture", "i1"), call("stats", "s1")])
    with anyio.fail_after(scaled(20)):
        await script.run(prism_function_tools(ToolPipeline(registry=registry)))
    image_output = script.outputs_seen["i1"]
    assert isinstance(image_output, list)
    kinds = [part.get("type") for part in image_output]
    assert "input_image" in kinds and "input_text" in kinds
    assert script.outputs_seen["s1"] == '{"files": 3}'


def test_options_are_checked_by_name() -> None:
    with pytest.raises(TypeError, match=r"prism_function_tools\.pipeline must be a ToolPipeline"):
        prism_function_tools(ToolRegistry([]))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="session_id"):
        prism_function_tools(ToolPipeline(registry=ToolRegistry([])), session_id=3)  # type: ignore[arg-type]
