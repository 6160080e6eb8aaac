"""Discovery: pagination, names, schema bounds, collisions (atomic), provider-safe prefixes."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from mcp import types

from prism.core import ToolCall, ToolRegistry, dispatch_tool_call
from prism.core.testing import scaled
from prism.mcp import (
    McpBridgeOptions,
    McpToolListError,
    McpToolNameCollisionError,
    McpToolSkippedWarning,
    StreamableHttpTransport,
    connect_mcp_tools,
)
from prism.mcp._listing import build_definitions

pytestmark = pytest.mark.anyio

HOSTILE_TOOLS = 14


async def test_tools_are_namespaced_and_listed_across_pages(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="docs", transport=kit.hostile("ok", "--page-size", "3")
        ) as bridge:
            assert not bridge.stale
            names = [t.name for t in bridge.tools]
            stats = (await kit.call(bridge, "stats")).value
    assert len(names) == HOSTILE_TOOLS
    assert len(set(names)) == HOSTILE_TOOLS
    assert all(n.startswith("mcp:docs:") for n in names)
    assert stats["list_requests"] == 5  # 14 tools, 3 per page
    echo = next(t for t in bridge.tools if t.name == "mcp:docs:echo")
    assert echo.parameters == {"type": "object", "properties": {"text": {"type": "string"}}}
    assert echo.description == "Return the text."
    assert echo.metadata["mcp_tool_name"] == "echo"


async def test_sdk_lowlevel_server_pages_are_followed(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="ll", transport=kit.lowlevel_memory(page_size=2, listen="none")
        ) as bridge:
            stats = (await kit.call(bridge, "stats")).value
    assert [t.name for t in bridge.tools][:5] == [f"mcp:ll:t{i}" for i in range(5)]
    assert len(bridge.tools) == 8
    assert stats["list_pages"] == 4


async def test_bad_remote_names_are_skipped_with_a_warning(kit) -> None:
    with pytest.warns(McpToolSkippedWarning) as warned, anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h", transport=kit.hostile("ok", "--bad-names")
        ) as bridge:
            names = {t.name for t in bridge.tools}
    assert len(names) == HOSTILE_TOOLS
    messages = " ".join(str(w.message) for w in warned)
    assert "'bad name!'" in messages
    assert "xxxx" in messages


async def test_schemas_over_the_bound_are_skipped(kit) -> None:
    with (
        pytest.warns(McpToolSkippedWarning, match="max_schema_bytes"),
        anyio.fail_after(scaled(30)),
    ):
        async with connect_mcp_tools(
            server_id="h", transport=kit.hostile(), options=McpBridgeOptions(max_schema_bytes=60)
        ) as bridge:
            names = {t.name for t in bridge.tools}
    assert "mcp:h:echo" in names
    assert "mcp:h:big" not in names


async def test_too_many_tools_or_pages_fail_the_connect(kit) -> None:
    with anyio.fail_after(scaled(30)):
        with pytest.raises(McpToolListError, match="max_tools=5"):
            async with connect_mcp_tools(
                server_id="h", transport=kit.hostile(), options=McpBridgeOptions(max_tools=5)
            ):
                pass
        with pytest.raises(McpToolListError, match="max_list_pages=3"):
            async with connect_mcp_tools(
                server_id="h",
                transport=kit.hostile("ok", "--page-size", "1"),
                options=McpBridgeOptions(max_list_pages=3),
            ):
                pass


async def test_a_duplicate_remote_name_fails_the_connect(kit) -> None:
    with anyio.fail_after(scaled(30)), pytest.raises(McpToolNameCollisionError) as caught:
        async with connect_mcp_tools(
            server_id="h", transport=kit.hostile("ok", "--duplicate", "echo")
        ):
            pass
    assert caught.value.name == "mcp:h:echo"


async def test_a_collision_fails_the_refresh_atomically(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            before = bridge.tools
            await kit.call(bridge, "add_tool", {"name": "echo"})
            assert await kit.until(lambda: bridge.stale)
            with pytest.raises(McpToolNameCollisionError):
                await bridge.refresh()
            assert bridge.tools is before
            assert bridge.stale
            echo = await kit.call(bridge, "echo", {"text": "still works"})
            await kit.call(bridge, "remove_tool", {"name": "echo"})
            await bridge.refresh()
    assert echo.error is None
    assert "mcp:h:echo" not in {t.name for t in bridge.tools}


async def test_two_servers_with_the_same_tool_coexist_in_one_registry(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with (
            connect_mcp_tools(server_id="a", transport=kit.hostile("ok", "--label", "A")) as a,
            connect_mcp_tools(server_id="b", transport=kit.hostile("ok", "--label", "B")) as b,
        ):
            registry = ToolRegistry([*a.tools, *b.tools], duplicate="error")
            results = [
                await dispatch_tool_call(
                    ToolCall(id=s, name=f"mcp:{s}:search", arguments={"query": "q"}),
                    registry=registry,
                )
                for s in ("a", "b")
            ]
    assert [r.content[0].text for r in results] == ["A:q", "B:q"]  # type: ignore[union-attr]
    assert [r.name for r in results] == ["mcp:a:search", "mcp:b:search"]


async def test_a_provider_safe_prefix_replaces_the_namespace(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="docs",
            transport=kit.hostile(),
            options=McpBridgeOptions(name_prefix="docs__"),
        ) as bridge:
            result = await kit.call(bridge, "echo", {"text": "x"})
    assert {t.name for t in bridge.tools} >= {"docs__echo", "docs__search"}
    assert result.name == "docs__echo"


def _tool(name: str, schema: Any = None, description: str | None = None) -> types.Tool:
    return types.Tool(name=name, input_schema=schema or {"type": "object"}, description=description)


def _build(tools: list[types.Tool], prefix: str = "mcp:s:", **options: Any) -> tuple[Any, ...]:
    return build_definitions(
        tools,
        server_id="s",
        prefix=prefix,
        options=McpBridgeOptions(**options),
        make_handler=lambda remote, name: lambda args, ctx: remote,
    )


def test_deep_schemas_long_names_and_long_descriptions_are_handled() -> None:
    deep: dict[str, Any] = {"type": "object"}
    node = deep
    for _ in range(70):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    with pytest.warns(McpToolSkippedWarning) as warned:
        built = _build(
            [
                _tool("deep", deep),
                _tool("n" * 125),
                _tool("ok", description="d" * 20_000),
            ],
            max_description_bytes=100,
        )
    assert [t.name for t in built] == ["mcp:s:ok"]
    assert built[0].description is not None
    assert len(built[0].description.encode()) <= 100
    text = " ".join(str(w.message) for w in warned)
    assert "deeper than 64" in text
    assert "longer than 128" in text
    assert "description" in text


def test_parameters_are_private_copies() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    built = _build([_tool("q", schema)])
    assert built[0].parameters == schema
    assert built[0].parameters is not schema


async def test_one_schema_too_deep_for_the_parser_costs_only_that_tool(kit) -> None:
    """``--deep 100`` nests the ``deep`` tool's schema over 200 JSON levels (the SDK's limit)."""
    with anyio.fail_after(scaled(60)):
        stdio = kit.sdk_stdio()
        stdio = type(stdio)(stdio.command, args=(*stdio.args, "--deep", "100"), env=kit.env)
        async with kit.http_server("--deep", "100") as url:
            for transport, mode in (
                (stdio, "legacy"),
                (StreamableHttpTransport(url), "legacy"),  # an SSE answer
                (StreamableHttpTransport(url), "auto"),  # a JSON body
            ):
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    async with connect_mcp_tools(
                        server_id="d",
                        transport=transport,
                        options=McpBridgeOptions(protocol_mode=mode),
                    ) as bridge:
                        names = {t.name for t in bridge.tools}
                        echoed = await kit.call(bridge, "echo", {"text": "ok"})
                skipped = [str(w.message) for w in seen if w.category is McpToolSkippedWarning]
                assert any("'deep'" in m and "deeper than 64" in m for m in skipped), skipped
                assert "mcp:d:echo" in names and "mcp:d:deep" not in names
                assert echoed.error is None


async def test_a_listing_page_over_the_read_cap_says_so(kit) -> None:
    with anyio.fail_after(scaled(30)), pytest.raises(McpToolListError) as caught:
        async with connect_mcp_tools(
            server_id="fat",
            transport=kit.lowlevel("--tools", "4000", "--page-size", "4000"),
            options=McpBridgeOptions(max_result_bytes=100_000),
        ):
            pass
    message = str(caught.value)
    assert "larger than the read cap of 265536 bytes" in message, message
    assert "max_result_bytes=100000" in message, message  # the option that raises it
    assert "another call" not in message
