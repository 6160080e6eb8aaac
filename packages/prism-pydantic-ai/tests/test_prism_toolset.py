"""A Prism registry inside a real pydantic-ai Agent: every call passes Prism's pipeline."""

from __future__ import annotations

import time

import anyio
import pytest
from pydantic_ai import Agent

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
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
from prism.pydantic_ai import PrismToolset

from .conftest import Script, call

pytestmark = pytest.mark.anyio

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


async def test_the_agent_sees_prism_tools_with_their_schemas_and_the_filter_applies() -> None:
    ran = RecordingTools()
    registry = ToolRegistry(
        [ran.tool("add", description="Add two ints", parameters=ADD_SCHEMA), ran.tool("secret")]
    )
    pipeline = ToolPipeline(
        registry=registry, gates=ToolGates(tool_filter=ToolFilter(deny=("secret",)))
    )
    toolset = PrismToolset(pipeline)
    script = Script([call("add", "c1", a=1, b=2)])
    with anyio.fail_after(scaled(20)):
        result = await Agent(script.model(), toolsets=[toolset]).run("go")
    assert result.output == "done"
    assert script.offered[0] == ["add"]
    tools = await toolset.get_tools(None)  # type: ignore[arg-type]
    assert tools["add"].tool_def.parameters_json_schema == ADD_SCHEMA
    assert tools["add"].tool_def.description == "Add two ints"
    assert script.returns["c1"] == "add ok"


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
        await Agent(script.model(), toolsets=[PrismToolset(pipeline)]).run("go")
    assert ran.calls == []
    assert "Permission denied" in str(script.returns["d1"])
    assert [(r.tool_call_id, r.status) for r in ledger.records] == [("d1", "blocked")]


async def test_invalid_arguments_come_back_as_a_retry_prompt_then_succeed() -> None:
    ran = RecordingTools()
    pipeline = ToolPipeline(
        registry=ToolRegistry([ran.tool("add", parameters=ADD_SCHEMA)]),
        gates=ToolGates(validator=create_json_schema_tool_argument_validator()),
    )
    script = Script([call("add", "v1", a="one", b=2)], [call("add", "v2", a=1, b=2)])
    with anyio.fail_after(scaled(20)):
        result = await Agent(script.model(), toolsets=[PrismToolset(pipeline)]).run("go")
    assert result.output == "done"
    assert script.retries["v1"].startswith("/a:")
    assert ran.calls == ["v2"]


async def test_a_model_that_keeps_sending_bad_arguments_cannot_abort_the_run() -> None:
    ran = RecordingTools()
    pipeline = ToolPipeline(
        registry=ToolRegistry([ran.tool("add", parameters=ADD_SCHEMA)]),
        gates=ToolGates(validator=create_json_schema_tool_argument_validator()),
    )
    bad = [[call("add", f"b{i}", a="x", b=1)] for i in range(4)]
    script = Script(*bad)
    with anyio.fail_after(scaled(20)):
        result = await Agent(script.model(), toolsets=[PrismToolset(pipeline, max_retries=1)]).run(
            "go"
        )
    assert result.output == "done"
    assert ran.calls == []
    assert any("must be a" in str(v) or "integer" in str(v) for v in script.returns.values())


@pytest.mark.alone  # a 0.55 s bound on 0.2 s of overlapped work
async def test_parallel_calls_overlap_and_an_exclusive_tool_runs_alone() -> None:
    ran = RecordingTools()
    registry = ToolRegistry(
        [ran.tool("slow", delay=0.2), ran.tool("lock", delay=0.05, exclusive=True)]
    )
    toolset = PrismToolset(ToolPipeline(registry=registry))
    script = Script([call("slow", f"p{i}") for i in range(3)])
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[toolset]).run("go")
    assert ran.peak == 3
    # Three 0.2 s calls overlapped (sequential: 0.6 s).
    assert time.monotonic() - started < scaled(0.55)
    tools = await toolset.get_tools(None)  # type: ignore[arg-type]
    assert tools["lock"].tool_def.sequential is True
    assert tools["slow"].tool_def.sequential is False


async def test_the_execution_policy_asks_the_host_for_approval_inside_the_call() -> None:
    policy = ReadsOnlyPolicy()
    tools = [policy_checked_tool("read", policy), policy_checked_tool("write", policy)]
    pipeline = ToolPipeline(registry=ToolRegistry(tools))
    script = Script([call("read", "r1"), call("write", "w1")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[PrismToolset(pipeline)]).run("go")
    assert sorted(policy.asked) == ["read", "write"]
    assert script.returns["r1"] == "read done"
    assert "writes need a human" in str(script.returns["w1"])


async def test_after_the_host_aborts_no_call_starts() -> None:
    ran = RecordingTools()
    controller = AbortController()
    controller.abort("user pressed stop")
    pipeline = ToolPipeline(registry=ToolRegistry([ran.tool("work")]))
    script = Script([call("work", "a1")])
    toolset = PrismToolset(pipeline, signal=controller.signal)
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[toolset]).run("go")
    assert ran.calls == []
    assert "user pressed stop" in str(script.returns["a1"])


async def test_cancelling_the_run_cancels_a_running_tool() -> None:
    entered = anyio.Event()
    finished: list[str] = []
    hang = hanging_tool("hang", entered=entered.set, cleaned_up=finished)
    pipeline = ToolPipeline(registry=ToolRegistry([hang]))
    agent = Agent(Script([call("hang", "h1")]).model(), toolsets=[PrismToolset(pipeline)])
    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as group:
            group.start_soon(agent.run, "go")
            await entered.wait()
            group.cancel_scope.cancel()
    assert finished == ["cleaned up"]


def test_options_are_checked_by_name() -> None:
    registry = ToolRegistry([])
    with pytest.raises(ValueError, match=r"PrismToolset\.max_retries must be an int from 0"):
        PrismToolset(ToolPipeline(registry=registry), max_retries=-1)
    with pytest.raises(TypeError, match="max_retries"):
        PrismToolset(ToolPipeline(registry=registry), max_retries="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pipeline"):
        PrismToolset(registry)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list"):
        PrismToolset(ToolPipeline(registry=type("Get", (), {"get": lambda s, n: None})()))


async def test_pydantic_ais_own_approval_flow_composes_with_the_prism_toolset() -> None:
    from pydantic_ai import DeferredToolRequests, DeferredToolResults

    ran = RecordingTools()
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(
        registry=ToolRegistry([ran.tool("deploy")]), gates=ToolGates(ledger=ledger)
    )
    toolset = PrismToolset(pipeline).approval_required()
    script = Script([call("deploy", "dep1")])
    agent = Agent(script.model(), toolsets=[toolset], output_type=[str, DeferredToolRequests])
    with anyio.fail_after(scaled(20)):
        first = await agent.run("go")
        assert isinstance(first.output, DeferredToolRequests)
        assert [part.tool_call_id for part in first.output.approvals] == ["dep1"]
        assert ran.calls == []
        second = await agent.run(
            message_history=first.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"dep1": True}),
        )
    assert second.output == "done"
    assert ran.calls == ["dep1"]
    assert [r.status for r in ledger.records] == ["started", "finished"]
