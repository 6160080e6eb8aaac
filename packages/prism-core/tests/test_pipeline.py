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
    ToolPipeline,
    create_static_permission_policy,
    create_tool_registry,
)

pytestmark = pytest.mark.anyio


async def echo(args: Any, ctx: ToolExecutionContext) -> str:
    return f"ran {ctx.tool_call_id}"


def _registry() -> Any:
    return create_tool_registry(
        [ToolDefinition(name="echo", execute=echo), ToolDefinition(name="rm", execute=echo)]
    )


async def test_dispatch_applies_every_gate_and_reports_to_the_ledger() -> None:
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(
        registry=_registry(),
        permission=create_static_permission_policy(deny=["tool:rm:*"]),
        ledger=ledger,
    )
    with anyio.fail_after(10):
        ok = await pipeline.dispatch(ToolCall(id="1", name="echo", arguments={}))
        denied = await pipeline.dispatch(ToolCall(id="2", name="rm", arguments={}))
    assert ok.error is None
    assert denied.error is not None and denied.error.code == "permission_denied"
    assert [row.status for row in ledger.records] == ["started", "finished", "blocked"]


async def test_a_call_may_name_its_own_registry_when_the_pipeline_has_none() -> None:
    pipeline = ToolPipeline()
    with anyio.fail_after(10):
        result = await pipeline.dispatch(
            ToolCall(id="x", name="echo", arguments={}), registry=_registry()
        )
        assert result.error is None
        with pytest.raises(TypeError, match="needs a registry"):
            await pipeline.dispatch(ToolCall(id="y", name="echo", arguments={}))


def test_visible_tools_are_the_ones_the_filter_admits() -> None:
    pipeline = ToolPipeline(registry=_registry(), tool_filter=ToolFilter(deny=("rm",)))
    assert [tool.name for tool in pipeline.visible_tools()] == ["echo"]


def test_a_registry_without_get_is_refused() -> None:
    with pytest.raises(TypeError, match="get"):
        ToolPipeline(registry=object())  # type: ignore[arg-type]


def test_admits_follows_the_filter() -> None:
    pipeline = ToolPipeline(tool_filter=ToolFilter(allow=("read*",), deny=("read_secret",)))
    assert pipeline.admits("read_file")
    assert not pipeline.admits("read_secret")
    assert not pipeline.admits("write")
