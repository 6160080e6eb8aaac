"""MCP results become Prism results: five content types, structured value, isError, bounds."""

from __future__ import annotations

import anyio
import pytest
from mcp import types

from prism.core import (
    AudioContent,
    ContentAnnotations,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    render_tool_result,
)
from prism.core.testing import scaled
from prism.mcp import MCP_RESULT_TOO_LARGE, MCP_TOOL_ERROR, McpBridgeOptions, connect_mcp_tools
from prism.mcp._content import map_call_result

pytestmark = pytest.mark.anyio

DETAILS = {"mcp_server_id": "s", "mcp_tool_name": "t"}


async def test_every_content_type_maps_from_a_raw_server(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            result = await kit.call(bridge, "content")
    assert result.error is None
    assert result.tool_call_id == "call-1"
    assert result.content[0] == TextContent(text="hello")
    assert isinstance(result.content[1], ImageContent)
    assert result.content[1].mime_type == "image/png"
    assert result.content[2] == AudioContent(data="UklGRgAAAABXQVZF", mime_type="audio/wav")
    assert result.content[3] == ResourceLinkContent(
        uri="file:///tmp/x.txt", name="x", mime_type="text/plain"
    )
    assert result.content[4] == ResourceContent(uri="mem://n", mime_type="text/plain", text="t")
    assert result.content[5] == ResourceContent(uri="mem://b", blob="AAEC")
    assert result.value == {"k": "v"}
    assert result.metadata["mcp_server_id"] == "h"


async def test_sdk_server_content_structured_values_and_errors(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(server_id="sdk", transport=kit.sdk_memory()) as bridge:
            mixed = await kit.call(bridge, "mixed")
            point = await kit.call(bridge, "structured", {"x": 1, "y": 2})
            echo = await kit.call(bridge, "echo", {"text": "hi"})
            image = await kit.call(bridge, "image")
            audio = await kit.call(bridge, "audio")
            failed = await kit.call(bridge, "fail", {"message": "bad input"})
            fetch = await kit.call(bridge, "fetch_fails")
            annotated = await kit.call(bridge, "annotated")
    kinds = [type(block).__name__ for block in mixed.content]
    assert kinds == [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLinkContent",
        "ResourceContent",
        "ResourceContent",
    ]
    assert mixed.content[4] == ResourceContent(
        uri="mem://note", mime_type="text/plain", text="note"
    )
    assert mixed.value == {"k": "v"}
    assert "{" not in render_tool_result(mixed)  # the value is for programs
    # one rule: the model sees the content; the structured twin is kept in value only
    assert point.value == {"x": 1, "y": 2}
    assert render_tool_result(point) == '{\n  "x": 1,\n  "y": 2\n}'
    assert echo.value == {"result": "hi"}
    assert render_tool_result(echo) == "hi"
    assert isinstance(image.content[0], ImageContent)
    assert image.value is None
    assert isinstance(audio.content[0], AudioContent)
    assert failed.error is not None
    assert failed.error.code == MCP_TOOL_ERROR
    # MCPServer hides the exception text; the error carries what the server said, once
    assert failed.error.message == "Error executing tool fail"
    assert render_tool_result(failed) == "Error: Error executing tool fail"
    assert fetch.error is not None
    assert render_tool_result(fetch) == "Error: fetch failed"
    assert [b.annotations for b in annotated.content] == [
        ContentAnnotations(audience=("user",)),
        ContentAnnotations(audience=("assistant",), priority=0.9),
        None,
    ]
    assert render_tool_result(annotated) == "for the assistant\nfor everyone"


async def test_a_structured_twin_of_the_text_is_counted_and_rendered_once(kit) -> None:
    cap = 1_000_000
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="fs",
            transport=kit.sdk_stdio(),
            options=McpBridgeOptions(max_result_bytes=cap),
        ) as bridge:
            near = await kit.call(bridge, "read_file", {"n_bytes": 900_000})
            over = await kit.call(bridge, "read_file", {"n_bytes": 1_100_000})
            image = await kit.call(bridge, "big_image", {"n_bytes": 600_000})
            after = await kit.call(bridge, "echo", {"text": "still here"})
    assert near.error is None, near.error
    text = render_tool_result(near)
    assert len(text) == 900_000 and text.startswith("line of a file\n")
    assert near.value == {"content": text}
    assert over.error is not None and over.error.code == MCP_RESULT_TOO_LARGE
    assert image.error is None
    rendered = render_tool_result(image)
    assert rendered.startswith("[image image/png, ") and len(rendered) < 100
    assert render_tool_result(after) == "still here"


async def test_error_messages_are_clipped_to_8_kib_and_the_text_said_once(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            long = await kit.call(bridge, "fail", {"message": "é" * 100_000})
            short = await kit.call(bridge, "fail", {"message": "fetch failed"})
    assert long.error is not None
    assert long.error.code == MCP_TOOL_ERROR
    assert len(long.error.message.encode()) <= 8192
    assert isinstance(long.content[0], TextContent)
    assert len(long.content[0].text) == 100_000
    assert render_tool_result(long).count("é" * 100) == 1000
    assert short.content == ()
    assert render_tool_result(short) == "Error: fetch failed"


def _map(result: types.CallToolResult, max_bytes: int = 1000):
    return map_call_result(result, call_id="c", name="n", max_bytes=max_bytes, details=DETAILS)


def test_a_mapped_result_over_the_bound_becomes_an_error() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(text="a" * 600),
            types.ImageContent(data="b" * 600, mime_type="x/y"),
        ]
    )
    mapped = _map(result)
    assert mapped.error is not None
    assert mapped.error.code == MCP_RESULT_TOO_LARGE
    assert mapped.content == ()
    assert "1200 bytes" in mapped.error.message


def test_a_structured_value_counts_only_when_it_is_what_is_rendered() -> None:
    alone = _map(types.CallToolResult(content=[], structured_content={"k": "v" * 2000}))
    assert alone.error is not None
    assert alone.error.code == MCP_RESULT_TOO_LARGE
    twin = types.CallToolResult(
        content=[types.TextContent(text="v" * 900)], structured_content={"content": "v" * 900}
    )
    assert _map(twin).error is None
    assert render_tool_result(_map(twin)) == "v" * 900
