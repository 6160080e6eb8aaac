"""``metadata["mcp_annotations"]`` carries the spec's camelCase keys, so a permission policy
written from docs/mcp.md reads a real server's hints: it fails closed, never open."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.core import (
    PermissionDecision,
    PermissionRequest,
    ToolCall,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
)
from prism.core.testing import scaled
from prism.mcp import (
    InMemoryTransport,
    McpBridgeOptions,
    StreamableHttpTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS, Kit, server_module

pytestmark = pytest.mark.anyio

SPEC_KEYS = {"readOnlyHint", "destructiveHint", "idempotentHint"}


class RefuseDestructiveTools:
    """The policy of docs/mcp.md: a tool the server marks destructive does not run."""

    def __init__(self, tools: dict[str, object]) -> None:
        self.tools = tools

    def check(self, request: PermissionRequest) -> PermissionDecision:
        tool = self.tools[request.target]
        hints = getattr(tool, "metadata", {}).get("mcp_annotations", {})
        if hints.get("destructiveHint") is True:
            return PermissionDecision(allowed=False, reason="the server marks it destructive")
        return PermissionDecision(allowed=True)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_policy_written_from_the_docs_reads_a_real_servers_hints(
    kit: Kit, mode: str, transport: str, tmp_path: Path
) -> None:
    served = str(SERVERS / "prism_served.py")
    with anyio.fail_after(scaled(60)):
        async with contextlib.AsyncExitStack() as stack:
            if transport == "memory":
                target: Any = InMemoryTransport(server_module("prism_served").build(tmp_path))
            else:
                target = StreamableHttpTransport(
                    await stack.enter_async_context(kit.http_script(served))
                )
            bridge = await stack.enter_async_context(
                connect_mcp_tools(
                    server_id="p",
                    transport=target,
                    options=McpBridgeOptions(name_prefix="", protocol_mode=mode),
                )
            )
            tools = {tool.name: tool for tool in bridge.tools}
            pipeline = ToolPipeline(
                registry=ToolRegistry(bridge.tools),
                gates=ToolGates(permission=RefuseDestructiveTools(tools)),
            )
            read = await pipeline.dispatch(ToolCall(id="1", name="stats", arguments={}), None)
            write = await pipeline.dispatch(ToolCall(id="2", name="echo", arguments={}), None)
    assert read.error is None
    assert write.error is not None and write.error.code == "permission_denied"
    assert set(tools["stats"].metadata["mcp_annotations"]) >= SPEC_KEYS  # type: ignore[arg-type]
    assert tools["stats"].metadata["mcp_annotations"]["readOnlyHint"] is True  # type: ignore[index]
    assert tools["echo"].metadata["mcp_annotations"]["destructiveHint"] is True  # type: ignore[index]
