"""MCP results become Prism results: five content types, structured value, isError, bounds."""

from __future__ import annotations

import anyio
import pytest
from mcp import types

from prism.core import (
    AudioContent,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    render_tool_result,
)
from prism.mcp import MCP_RESULT_TOO_LARGE, MCP_TOOL_ERROR, connect_mcp_tools
from prism.mcp._content import map_call_result

pytestmark = pytest.mark.anyio

DETAILS = {"mcp_server_id": "s", "mcp_tool_name": "t"}


async def test_every_content_type_maps_from_a_raw_server(kit) -> None:
    with anyio.fail_after(30):
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
    with anyio.fail_after(60):
        async with connect_mcp_tools(server_id="sdk", transport=kit.sdk_stdio()) as bridge:
            mixed = await kit.call(bridge, "mixed")
            point = await kit.call(bridge, "structured", {"x": 1, "y": 2})
            echo = await kit.call(bridge, "echo", {"text": "hi"})
            image = await kit.call(bridge, "image")
            audio = await kit.call(bridge, "audio")
            failed = await kit.call(bridge, "fail", {"message": "bad input"})
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
    # structuredContent becomes value; the text block that only repeats it is dropped
    assert point.value == {"x": 1, "y": 2}
    assert point.content == ()
    assert echo.value == {"result": "hi"}
    assert echo.content == ()
    assert render_tool_result(echo) == '{"result":"hi"}'
    assert isinstance(image.content[0], ImageContent)
    assert image.value is None
    assert isinstance(audio.content[0], AudioContent)
    assert failed.error is not None
    assert failed.error.code == MCP_TOOL_ERROR
    # MCPServer hides the exception text; the error carries what the server said, content is kept
    assert isinstance(failed.content[0], TextContent)
    assert failed.error.message == failed.content[0].text == "Error executing tool fail"


async def test_duplicate_text_is_kept_when_asked(kit) -> None:
    with anyio.fail_after(30):
        async with connect_mcp_tools(
            server_id="h", transport=kit.hostile(), drop_duplicate_text=False
        ) as bridge:
            result = await kit.call(bridge, "pid")
    assert isinstance(result.content[0], TextContent)
    assert result.value == {"pid": result.value["pid"], "pgid": result.value["pgid"]}


async def test_error_messages_are_clipped_to_8_kib_and_content_kept(kit) -> None:
    with anyio.fail_after(30):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            result = await kit.call(bridge, "fail", {"message": "é" * 100_000})
    assert result.error is not None
    assert result.error.code == MCP_TOOL_ERROR
    assert len(result.error.message.encode()) <= 8192
    assert isinstance(result.content[0], TextContent)
    assert len(result.content[0].text) == 100_000


def test_a_mapped_result_over_the_bound_becomes_an_error() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(text="a" * 600),
            types.ImageContent(data="b" * 600, mime_type="x/y"),
        ]
    )
    mapped = map_call_result(
        result, call_id="c", name="n", max_bytes=1000, drop_duplicate_text=True, details=DETAILS
    )
    assert mapped.error is not None
    assert mapped.error.code == MCP_RESULT_TOO_LARGE
    assert mapped.content == ()
    assert "1200 bytes" in mapped.error.message


def test_structured_values_count_towards_the_bound() -> None:
    result = types.CallToolResult(content=[], structured_content={"k": "v" * 2000})
    mapped = map_call_result(
        result, call_id="c", name="n", max_bytes=1000, drop_duplicate_text=True, details=DETAILS
    )
    assert mapped.error is not None
    assert mapped.error.code == MCP_RESULT_TOO_LARGE


def test_only_a_faithful_repeat_of_the_value_is_dropped() -> None:
    def mapped(text: str, value: object) -> tuple[object, ...]:
        result = types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=value
        )
        return map_call_result(
            result,
            call_id="c",
            name="n",
            max_bytes=10_000,
            drop_duplicate_text=True,
            details=DETAILS,
        ).content

    assert mapped('{\n  "x": 3\n}', {"x": 3}) == ()
    assert mapped("7", {"result": 7}) == ()
    assert mapped("seven", {"result": 7}) == (TextContent(text="seven"),)
    assert mapped('{"x": 4}', {"x": 3}) == (TextContent(text='{"x": 4}'),)
