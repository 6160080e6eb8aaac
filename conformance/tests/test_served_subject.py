"""The coding-tools and coding-security threat rows, run through the MCP-served registry.

``served_subjects()`` sends every call from Prism's MCP client over stdio to ``McpToolServer``
serving the row's tools under its policy; each row runs on both backends.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from prism.conformance import BACKENDS, THREAT_MATRIX, run_row
from prism.conformance._subject_served import (
    SERVED_UNSUPPORTED_ROWS,
    served_dispatch,
    served_subjects,
)
from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    render_tool_result,
)
from prism.core.testing import scaled

CODING_ROWS = tuple(
    row.id
    for row in THREAT_MATRIX
    if row.package in ("prism-coding-tools", "prism-coding-security")
)
SUBJECTS = served_subjects()


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("row_id", [r for r in CODING_ROWS if r not in SERVED_UNSUPPORTED_ROWS])
def test_coding_rows_hold_through_the_served_registry(row_id: str, backend: str) -> None:
    result = run_row(row_id, SUBJECTS, backend=backend)
    assert result.status in ("passed", "skipped"), result.message
    if result.status == "skipped":  # only the sandbox rows may skip, and only without bwrap
        assert "bubblewrap" in (result.message or "") or "bwrap" in (result.message or "")


@pytest.mark.parametrize("row_id", sorted(SERVED_UNSUPPORTED_ROWS))
def test_rows_listed_as_not_applicable_are_coding_rows(row_id: str) -> None:
    assert row_id in CODING_ROWS
    assert len(SERVED_UNSUPPORTED_ROWS[row_id]) > 40  # a reason, not a placeholder


def _context(controller: AbortController | None = None) -> ToolExecutionContext:
    signal = (controller or AbortController()).signal
    return ToolExecutionContext(session_id="s", run_id="r", tool_call_id="c1", signal=signal)


seen: list[ToolExecutionContext] = []


async def _echo(arguments: Any, context: ToolExecutionContext) -> str:
    seen.append(context)
    return f"echo {arguments.get('text')}"


async def _forever(arguments: Any, context: ToolExecutionContext) -> str:
    seen.append(context)
    await anyio.sleep_forever()
    return "never"


TOOLS = ToolRegistry(
    [ToolDefinition(name="echo", execute=_echo), ToolDefinition(name="forever", execute=_forever)]
)


@pytest.mark.anyio
async def test_a_served_call_crosses_the_wire_and_the_gates_run_on_the_server() -> None:
    seen.clear()
    with anyio.fail_after(scaled(60)):
        ok = await served_dispatch(
            ToolCall(id="c1", name="echo", arguments={"text": "hi"}),
            registry=TOOLS,
            context=_context(),
        )
        denied = await served_dispatch(
            ToolCall(id="c2", name="echo", arguments={"text": "no"}),
            registry=TOOLS,
            context=_context(),
            gates=ToolGates(permission=create_static_permission_policy(deny=["tool:echo:execute"])),
        )
    assert ok.error is None and render_tool_result(ok) == "echo hi"
    assert ok.metadata.get("mcp_tool_name") == "echo"  # mapped from an MCP result
    assert [c.tool_call_id[:4] for c in seen] == ["mcp-"]  # the server's context, not ours
    assert denied.error is not None and "denied" in denied.error.message.lower()


@pytest.mark.anyio
async def test_aborting_a_served_call_cancels_it_on_the_server() -> None:
    seen.clear()
    controller = AbortController()

    async def abort_when_running() -> None:
        while not seen:
            await anyio.sleep(0.01)
        controller.abort("stop")

    with anyio.fail_after(scaled(60)):
        async with anyio.create_task_group() as group:
            group.start_soon(abort_when_running)
            result = await served_dispatch(
                ToolCall(id="c3", name="forever", arguments={}),
                registry=TOOLS,
                context=_context(controller),
            )
        with anyio.fail_after(scaled(10)):
            while not seen[0].signal.aborted:
                await anyio.sleep(0.01)
    assert result.error is not None
