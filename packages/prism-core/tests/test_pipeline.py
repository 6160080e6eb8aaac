"""ToolPipeline: one object carrying the registry and every gate, used by framework integrations."""

from __future__ import annotations

from typing import Any

import anyio
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
    create_static_permission_policy,
)
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


async def echo(args: Any, ctx: ToolExecutionContext) -> str:
    return f"ran {ctx.tool_call_id}"


def _registry() -> Any:
    return ToolRegistry(
        [ToolDefinition(name="echo", execute=echo), ToolDefinition(name="rm", execute=echo)]
    )


async def test_dispatch_applies_every_gate_and_reports_to_the_ledger() -> None:
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(
        registry=_registry(),
        gates=ToolGates(
            permission=create_static_permission_policy(deny=["tool:rm:*"]), ledger=ledger
        ),
    )
    with anyio.fail_after(scaled(10)):
        ok = await pipeline.dispatch(ToolCall(id="1", name="echo", arguments={}))
        denied = await pipeline.dispatch(ToolCall(id="2", name="rm", arguments={}))
    assert ok.error is None
    assert denied.error is not None and denied.error.code == "permission_denied"
    assert [row.status for row in ledger.records] == ["started", "finished", "blocked"]


async def test_a_call_may_name_its_own_registry_when_the_pipeline_has_none() -> None:
    pipeline = ToolPipeline()
    with anyio.fail_after(scaled(10)):
        result = await pipeline.dispatch(
            ToolCall(id="x", name="echo", arguments={}), registry=_registry()
        )
        assert result.error is None
        with pytest.raises(
            TypeError, match=r"^ToolPipeline\.dispatch\.registry must be a ToolLookup"
        ):
            await pipeline.dispatch(ToolCall(id="y", name="echo", arguments={}))


def test_visible_tools_are_the_ones_the_filter_admits() -> None:
    pipeline = ToolPipeline(
        registry=_registry(), gates=ToolGates(tool_filter=ToolFilter(deny=("rm",)))
    )
    assert [tool.name for tool in pipeline.visible_tools()] == ["echo"]


def test_a_registry_without_get_is_refused() -> None:
    with pytest.raises(TypeError, match="get"):
        ToolPipeline(registry=object())  # type: ignore[arg-type]


def test_admits_follows_the_filter() -> None:
    pipeline = ToolPipeline(
        gates=ToolGates(tool_filter=ToolFilter(allow=("read*",), deny=("read_secret",)))
    )
    assert pipeline.admits("read_file")
    assert not pipeline.admits("read_secret")
    assert not pipeline.admits("write")


async def test_an_external_tool_runs_behind_the_gates_and_its_raw_value_survives() -> None:
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(gates=ToolGates(ledger=ledger))
    marker = object()

    async def invoke(arguments: Any) -> object:
        return marker

    with anyio.fail_after(scaled(10)):
        outcome = await pipeline.dispatch_external(
            ToolCall(id="e", name="ext", arguments={}), invoke, convert=lambda raw: {"kept": True}
        )
    assert outcome.raw is marker
    assert outcome.unchanged
    assert outcome.result.value == {"kept": True}
    assert [r.status for r in ledger.records] == ["started", "finished"]


async def test_a_denied_external_tool_never_runs() -> None:
    ran: list[str] = []

    async def invoke(arguments: Any) -> object:
        ran.append("ran")
        return "x"

    pipeline = ToolPipeline(
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:ext:*"]))
    )
    with anyio.fail_after(scaled(10)):
        outcome = await pipeline.dispatch_external(
            ToolCall(id="e", name="ext", arguments={}), invoke
        )
    assert ran == []
    assert not outcome.unchanged
    assert outcome.result.error is not None and outcome.result.error.code == "permission_denied"


async def test_redaction_marks_an_external_result_as_changed() -> None:
    from prism.core import SecretRedactor

    async def invoke(arguments: Any) -> object:
        return "token sk-123"

    pipeline = ToolPipeline(gates=ToolGates(redactor=SecretRedactor(["sk-123"])))
    with anyio.fail_after(scaled(10)):
        outcome = await pipeline.dispatch_external(
            ToolCall(id="e", name="ext", arguments={}), invoke
        )
    assert not outcome.unchanged
    assert outcome.raw == "token sk-123"
    assert "sk-123" not in str(outcome.result.content)


async def test_passthrough_exceptions_are_recorded_then_reraised() -> None:
    class Deferred(Exception):
        pass

    async def invoke(arguments: Any) -> object:
        raise Deferred("later")

    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(gates=ToolGates(ledger=ledger))
    with anyio.fail_after(scaled(10)), pytest.raises(Deferred):
        await pipeline.dispatch_external(
            ToolCall(id="e", name="ext", arguments={}), invoke, passthrough=(Deferred,)
        )
    assert [r.status for r in ledger.records] == ["started", "error"]


async def test_other_exceptions_become_error_results() -> None:
    async def invoke(arguments: Any) -> object:
        raise KeyError("boom")

    with anyio.fail_after(scaled(10)):
        outcome = await ToolPipeline().dispatch_external(
            ToolCall(id="e", name="ext", arguments={}), invoke
        )
    assert outcome.result.error is not None and outcome.result.error.name == "KeyError"
    assert outcome.raw is None and not outcome.unchanged


def test_a_call_scope_builds_contexts_that_share_its_session_and_signal() -> None:
    from prism.core import AbortController, CallScope

    controller = AbortController()
    scope = CallScope(session_id="s1", signal=controller.signal)
    first, second = scope.context("a", "run"), scope.context("b")
    assert (first.session_id, first.run_id, first.tool_call_id) == ("s1", "run", "a")
    assert second.tool_call_id == "b" and second.run_id == ""
    controller.abort("stop")
    assert first.signal.aborted and second.signal.aborted
    assert not CallScope().context("c").signal.aborted


@pytest.mark.parametrize(("field", "value"), [("session_id", 3), ("signal", "not a signal")])
def test_a_call_scope_refuses_bad_options_by_name(field: str, value: object) -> None:
    from prism.core import CallScope

    with pytest.raises(TypeError, match=rf"^CallScope\.{field} must be"):
        CallScope(**{field: value})  # type: ignore[arg-type]
