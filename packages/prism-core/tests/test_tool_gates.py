"""One ``ToolGates`` value, checked once, gates a call the same way at every entry point."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from prism.core import (
    InMemoryRunLedger,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import Agent, ModelResponse, RunOptions, ToolMessage
from prism.core.testing import ScriptedProvider


async def _echo(arguments: Any, context: ToolExecutionContext) -> str:
    return "ran"


def _registry() -> ToolRegistry:
    return ToolRegistry([ToolDefinition(name="echo", execute=_echo)])


@pytest.mark.parametrize(
    ("field", "bad", "error"),
    [
        ("middleware", "not a registry", TypeError),
        ("tool_filter", "echo", TypeError),
        ("tool_filter", [ToolFilter(deny=["x"]), "echo"], TypeError),
        ("permission", object(), TypeError),
        ("validator", 42, TypeError),
        ("redactor", object(), TypeError),
        ("ledger", "rows.jsonl", TypeError),
        ("max_argument_bytes", 0, ValueError),
        ("max_argument_bytes", 1_048_576.0, TypeError),
    ],
)
def test_a_bad_gate_is_refused_when_the_gates_are_built_naming_it(
    field: str, bad: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match=rf"^ToolGates\.{field}"):
        ToolGates(**{field: bad})


def test_gates_are_frozen_and_keep_a_list_of_filters_as_a_tuple() -> None:
    filters = [ToolFilter(deny=["a"]), ToolFilter(deny=["b"])]
    gates = ToolGates(tool_filter=filters)
    filters.append(ToolFilter(deny=["c"]))
    assert gates.tool_filter == tuple(filters[:2])
    with pytest.raises(dataclasses.FrozenInstanceError):
        gates.validator = None  # type: ignore[misc]


def _pipeline(gates: Any) -> object:
    return ToolPipeline(registry=_registry(), gates=gates)


def _agent(gates: Any) -> object:
    return Agent(provider=ScriptedProvider([]), model="m", gates=gates)


@pytest.mark.parametrize("holder", [_pipeline, _agent])
def test_holders_refuse_anything_but_tool_gates(holder: Any) -> None:
    with pytest.raises(TypeError, match="gates must be a ToolGates"):
        holder({"permission": None})


@pytest.mark.anyio
async def test_the_same_gates_block_the_same_call_at_every_entry_point() -> None:
    ledger = InMemoryRunLedger()
    gates = ToolGates(
        permission=create_static_permission_policy(deny=["tool:echo:*"]), ledger=ledger
    )
    call = ToolCall(id="c1", name="echo", arguments={})
    registry = _registry()
    single = await dispatch_tool_call(call, registry=registry, gates=gates)
    (batched,) = await dispatch_tool_calls_in_order([call], registry=registry, gates=gates)
    piped = await ToolPipeline(registry=registry, gates=gates).dispatch(call)
    provider = ScriptedProvider([ModelResponse(tool_calls=(call,)), ModelResponse(content=())])
    run = await Agent(provider=provider, model="m", tools=registry, gates=gates).run("go")
    (looped,) = [m.result for m in run.messages if isinstance(m, ToolMessage)]
    results: list[ToolResult] = [single, batched, piped, looped]
    assert [r.error.code if r.error else None for r in results] == ["permission_denied"] * 4
    assert [row.status for row in ledger.records] == ["blocked"] * 4


@pytest.mark.anyio
async def test_a_run_validator_replaces_the_gates_validator_for_that_run_only() -> None:
    def agents(tool: ToolDefinition, arguments: Any, context: ToolExecutionContext) -> str:
        return "refused by the agent's validator"

    def runs(tool: ToolDefinition, arguments: Any, context: ToolExecutionContext) -> None:
        return None

    call = ToolCall(id="c1", name="echo", arguments={})

    def provider() -> ScriptedProvider:
        return ScriptedProvider([ModelResponse(tool_calls=(call,)), ModelResponse(content=())])

    agent = Agent(
        provider=provider(), model="m", tools=_registry(), gates=ToolGates(validator=agents)
    )
    passed = await agent.run("go", options=RunOptions(validator=runs))
    agent.provider = provider()
    refused = await agent.run("go")
    (ok,) = [m.result for m in passed.messages if isinstance(m, ToolMessage)]
    (blocked,) = [m.result for m in refused.messages if isinstance(m, ToolMessage)]
    assert ok.error is None
    assert blocked.error is not None and blocked.error.code == "validation_failed"
    assert agent.gates.validator is agents


def test_a_run_validator_must_be_callable() -> None:
    with pytest.raises(TypeError, match=r"^RunOptions\.validator"):
        RunOptions(validator="strict")  # type: ignore[arg-type]
