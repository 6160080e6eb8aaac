"""A Prism registry served over MCP, called by Prism's own bridge in memory, over stdio and HTTP.

The server is ``servers/prism_served.py``: built in this process (``InMemoryTransport``) for the
protocol behaviours, run as a real subprocess for stdio and HTTP; the client is
``connect_mcp_tools``. Both backends.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    AudioContent,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    create_static_permission_policy,
)
from prism.core.testing import scaled
from prism.mcp import (
    ElicitationRequest,
    ElicitationResponse,
    InMemoryTransport,
    McpBridgeOptions,
    McpClientFeatures,
    McpToolBridge,
    StdioTransport,
    StreamableHttpTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS, Kit, server_module

pytestmark = pytest.mark.anyio

SERVED = str(SERVERS / "prism_served.py")


@contextlib.asynccontextmanager
async def served(
    kit: Kit,
    transport: str,
    markers: Path,
    fallback: str | None = None,
    **bounds: Any,
) -> AsyncIterator[McpToolBridge]:
    """The served registry over ``transport``: "memory" (in-process), "stdio" or "http";
    ``bounds`` are ``McpBridgeOptions`` fields."""
    options = McpBridgeOptions(name_prefix="", **bounds)
    if transport == "memory":
        memory = InMemoryTransport(server_module("prism_served").build(markers, fallback))
        async with connect_mcp_tools(
            server_id="prism", transport=memory, options=options
        ) as bridge:
            yield bridge
        return
    env = {**kit.env, "PRISM_SERVED_MARKERS": str(markers)}
    if fallback is not None:
        env["PRISM_SERVED_FALLBACK"] = fallback
    if transport == "stdio":
        stdio = StdioTransport(sys.executable, args=(SERVED, "stdio"), env=env)
        async with connect_mcp_tools(server_id="prism", transport=stdio, options=options) as bridge:
            yield bridge
        return
    async with kit.http_script(SERVED, env=env) as url:
        http = StreamableHttpTransport(url)
        async with connect_mcp_tools(server_id="prism", transport=http, options=options) as bridge:
            yield bridge


@pytest.fixture(params=["memory", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    """In memory for the protocol, over real HTTP for the transport; stdio has its own tests."""
    return str(request.param)


@pytest.mark.parametrize("transport", ["memory", "stdio", "http"])
async def test_every_content_type_round_trips(kit: Kit, transport: str, tmp_path: Path) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            result = await kit.call(bridge, "everything")
    assert result.error is None
    kinds = [type(block) for block in result.content]
    assert kinds == [
        TextContent, ImageContent, AudioContent, ResourceContent, ResourceContent,
        ResourceLinkContent,
    ]  # fmt: skip
    text_resource, blob_resource = result.content[3], result.content[4]
    assert isinstance(text_resource, ResourceContent) and text_resource.text == "notes"
    assert isinstance(blob_resource, ResourceContent) and blob_resource.blob == "AAEC"
    link = result.content[5]
    assert isinstance(link, ResourceLinkContent) and (link.name, link.size) == ("big.log", 10)


async def test_a_structured_value_arrives_as_the_value(
    kit: Kit, transport: str, tmp_path: Path
) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            result = await kit.call(bridge, "stats")
    assert result.error is None
    assert result.value == {"files": 3, "lines": 120}


async def test_errors_and_refusals_arrive_as_errors_with_prisms_code(
    kit: Kit, transport: str, tmp_path: Path
) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            failed = await kit.call(bridge, "fail")
            denied = await kit.call(bridge, "rm")
    assert failed.error is not None and "no such row" in failed.error.message
    assert denied.error is not None and "Permission denied" in denied.error.message


async def test_progress_reports_reach_the_caller(kit: Kit, transport: str, tmp_path: Path) -> None:
    seen: list[tuple[float | None, str | None]] = []

    async def progress(value: float | None, message: str | None) -> None:
        seen.append((value, message))

    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            result = await kit.call(bridge, "steps", progress=progress)
    assert result.error is None
    assert [m for _, m in seen] == ["step 1", "step 2", "step 3"]


async def test_a_cancelled_call_cancels_the_served_handler(
    kit: Kit, transport: str, tmp_path: Path
) -> None:
    controller = AbortController()
    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            async with anyio.create_task_group() as group:

                async def abort_when_started() -> None:
                    await kit.until(lambda: (tmp_path / "hang-started").exists(), 20)
                    controller.abort("user stop")

                group.start_soon(abort_when_started)
                result = await kit.call(bridge, "hang", signal=controller.signal)
            assert result.error is not None
            assert await kit.until(lambda: (tmp_path / "hang-cancelled").exists(), 10)


async def test_results_over_the_servers_bound_become_an_error(
    kit: Kit, transport: str, tmp_path: Path
) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, transport, tmp_path) as bridge:
            small = await kit.call(bridge, "big", {"size": 1000})
            large = await kit.call(bridge, "big", {"size": 200_000})
    assert small.error is None
    assert large.error is not None and "over this server's limit" in large.error.message


async def test_a_tool_added_while_connected_is_announced(
    kit: Kit, transport: str, tmp_path: Path
) -> None:
    changed = anyio.Event()
    with anyio.fail_after(scaled(60)):
        async with served(
            kit, transport, tmp_path, on_tools_changed=lambda _: changed.set()
        ) as bridge:
            assert "late" not in [t.name for t in bridge.tools]
            # on 2026-07-28 the announcement rides a listen stream the bridge opens after connecting
            assert await kit.until(lambda: bridge.list_changed_mode != "ttl", scaled(10))
            await kit.call(bridge, "add_tool", {"name": "late"})
            with anyio.fail_after(scaled(10)):
                await changed.wait()
            assert bridge.stale
            names = [t.name for t in await bridge.refresh()]
    assert "late" in names


async def test_stray_stdout_in_a_tool_never_corrupts_stdio(kit: Kit, tmp_path: Path) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, "stdio", tmp_path) as bridge:
            noisy = await kit.call(bridge, "noisy")
            after = await kit.call(bridge, "echo", {"text": "ok"})
    assert noisy.error is None and after.error is None
    assert isinstance(after.content[0], TextContent) and after.content[0].text == "ok"


async def test_tools_are_listed_with_schemas_and_hints(kit: Kit, tmp_path: Path) -> None:
    with anyio.fail_after(scaled(60)):
        async with served(kit, "memory", tmp_path) as bridge:
            echo = kit.tool(bridge, "echo")
    assert echo.description == "Echo text"
    assert echo.parameters == {"type": "object", "properties": {"text": {"type": "string"}}}
    annotations: Any = echo.metadata.get("mcp_annotations")
    assert annotations["destructiveHint"] is True  # no side-effect hint: assume the worst
    assert annotations["readOnlyHint"] is False


@pytest.mark.parametrize(("fallback", "runs"), [("yes", True), ("no", False), (None, False)])
async def test_without_a_back_channel_the_operators_approver_decides_approvals(
    kit: Kit, tmp_path: Path, fallback: str | None, runs: bool
) -> None:
    # The bridge negotiates the 2026-07-28 protocol here: no server-to-client requests, so the
    # served approval cannot elicit and must hand the question to the host (deny without one).
    asked: list[str] = []

    async def elicit(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request.message)  # never reached: the protocol has no back channel
        return ElicitationResponse(action="accept", content={"approve": True})

    features = McpClientFeatures(permission=create_static_permission_policy(), elicitation=elicit)
    with anyio.fail_after(scaled(60)):
        async with served(kit, "memory", tmp_path, fallback, client_features=features) as bridge:
            result = await kit.call(bridge, "deploy")
    assert (tmp_path / "deployed").exists() is runs
    assert (result.error is None) is runs
    assert asked == []
    if fallback is None:  # nobody to ask: the result says so
        assert result.error is not None and "no one could be asked" in result.error.message
