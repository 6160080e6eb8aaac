"""The names dispatch loads only when a gate or a sink is set are the real ones, and leaving
``gates`` out is exactly ``ToolGates()`` (first use does not load the gate modules)."""

from __future__ import annotations

import importlib

import pytest

from prism.core import (
    AbortController,
    ErrorInfo,
    InMemoryRunLedger,
    PermissionRequest,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    _on_demand,
    dispatch_tool_call,
)
from prism.core._dispatch_options import DispatchOptions
from prism.core.events import AgentEvent, ToolExecutionFinished, ToolExecutionStarted


def test_every_on_demand_name_is_the_object_of_its_home_module() -> None:
    _on_demand.ToolGates  # noqa: B018  (the first access binds every name)
    assert "__getattr__" not in vars(_on_demand)  # then each is a plain module attribute
    for name, home in _on_demand._HOMES.items():
        module = importlib.import_module(home, "prism.core")
        assert getattr(_on_demand, name) is getattr(module, name), name
    assert sorted(_on_demand.__all__) == sorted([*_on_demand._HOMES, *_on_demand._FACTORIES])
    assert set(_on_demand.__all__) <= set(dir(_on_demand))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _on_demand.nothing  # noqa: B018


def test_each_on_demand_factory_builds_what_a_keyword_call_builds() -> None:
    call = ToolCall(id="c", name="n", arguments={"a": 1})
    result = ToolResult(tool_call_id="c", name="n")
    assert _on_demand.make_request("tool", "n", "execute", {"k": 1}) == PermissionRequest(
        kind="tool", target="n", action="execute", metadata={"k": 1}
    )
    assert _on_demand.make_started("s", "r", call, "tool_execution_started") == (
        ToolExecutionStarted(session_id="s", run_id="r", call=call)
    )
    assert _on_demand.make_finished("s", "r", call, result, 0.5, "tool_execution_finished") == (
        ToolExecutionFinished(session_id="s", run_id="r", call=call, result=result,
                              duration_seconds=0.5)
    )  # fmt: skip


def _unpacked(options: DispatchOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in DispatchOptions.__slots__}


def test_leaving_gates_out_is_exactly_the_default_tool_gates() -> None:
    registry = ToolRegistry([])
    assert _unpacked(DispatchOptions.of({"registry": registry})) == _unpacked(
        DispatchOptions.of({"registry": registry, "gates": ToolGates()})
    )
    assert _unpacked(DispatchOptions.of({"registry": registry, "gates": None})) == _unpacked(
        DispatchOptions.of({"registry": registry, "gates": ToolGates()})
    )


class _CountedGates(ToolGates):
    """A subclass is still a ``ToolGates``."""


async def _fails(arguments: object, context: ToolExecutionContext) -> str:
    raise ValueError("no")


@pytest.mark.anyio
async def test_a_gate_subclass_a_sink_and_a_ledger_work_through_the_on_demand_names() -> None:
    events: list[AgentEvent] = []
    ledger = InMemoryRunLedger()
    registry = ToolRegistry([ToolDefinition(name="fails", execute=_fails)])
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="", signal=AbortController().signal
    )
    gates = _CountedGates(ledger=ledger)
    for name in ("fails", "missing"):
        call = ToolCall(id=name, name=name, arguments={})
        result = await dispatch_tool_call(
            call, registry=registry, gates=gates, emit=events.append, context=context
        )
        assert isinstance(result.error, ErrorInfo)
    assert [e.type for e in events] == [
        "tool_execution_started", "tool_execution_failed", "tool_execution_blocked",
    ]  # fmt: skip
    assert [r.status for r in ledger.records] == ["started", "error", "blocked"]
