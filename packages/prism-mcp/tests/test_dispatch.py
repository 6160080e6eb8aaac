"""MCP tools go through ``dispatch_tool_call`` like any tool: validated before the server."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    ToolArgumentValidationIssue,
    ToolArgumentValidationResult,
    ToolCall,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    create_tool_parameter_validator,
    dispatch_tool_call,
)
from prism.core.testing import abort_after, scaled
from prism.mcp import MCP_ABORTED, connect_mcp_tools

pytestmark = pytest.mark.anyio


class _JsonschemaLibrary:
    """A ``ToolArgumentValidator`` over the ``jsonschema`` library (an ``mcp`` dependency)."""

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        import jsonschema

        errors = tuple(
            ToolArgumentValidationIssue(
                path="/" + "/".join(str(p) for p in error.absolute_path), message=error.message
            )
            for error in jsonschema.Draft202012Validator(schema).iter_errors(value)
        )
        return ToolArgumentValidationResult(ok=not errors, errors=errors)


def _validator() -> Any:
    """prism-jsonschema's validator when it is installed, else the ``jsonschema`` library."""
    try:
        from prism.jsonschema import JsonSchemaArgumentValidator  # type: ignore[attr-defined]
    except ImportError:
        return _JsonschemaLibrary()
    return JsonSchemaArgumentValidator()


async def test_arguments_invalid_for_the_remote_schema_never_reach_the_server(kit) -> None:
    validate = create_tool_parameter_validator(_validator())
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            registry = ToolRegistry(bridge.tools)
            before = (await kit.call(bridge, "stats")).value["calls"]
            bad = await dispatch_tool_call(
                ToolCall(id="1", name="mcp:h:echo", arguments={"text": 42}),
                registry=registry,
                gates=ToolGates(validator=validate),
            )
            after_bad = (await kit.call(bridge, "stats")).value["calls"]
            good = await dispatch_tool_call(
                ToolCall(id="2", name="mcp:h:echo", arguments={"text": "hello"}),
                registry=registry,
                gates=ToolGates(validator=validate),
            )
    assert bad.error is not None
    assert bad.error.code == "validation_failed"
    assert "/text" in bad.error.message
    assert after_bad == before + 1  # only the stats call reached the server
    assert good.error is None
    assert good.tool_call_id == "2"
    assert good.name == "mcp:h:echo"


async def test_dispatch_gates_and_signals_apply_to_mcp_tools(kit) -> None:
    ledger = InMemoryRunLedger()
    controller = AbortController()
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            registry = ToolRegistry(bridge.tools)
            denied = await dispatch_tool_call(
                ToolCall(id="1", name="mcp:h:crash", arguments={}),
                registry=registry,
                gates=ToolGates(
                    permission=create_static_permission_policy(deny=["tool:mcp:h:crash:execute"])
                ),
            )

            async with anyio.create_task_group() as tg:
                tg.start_soon(abort_after, controller, 0.3, "stop")
                aborted = await dispatch_tool_call(
                    ToolCall(id="2", name="mcp:h:sleep", arguments={"seconds": 30}),
                    registry=registry,
                    context=kit.context(signal=controller.signal, call_id="2"),
                    gates=ToolGates(ledger=ledger),
                )
            alive = (await kit.call(bridge, "pid")).error is None
    assert denied.error is not None
    assert denied.error.code == "permission_denied"
    assert aborted.error is not None
    assert aborted.error.code == MCP_ABORTED
    assert [r.status for r in ledger.records] == ["started", "finished"]
    assert alive
