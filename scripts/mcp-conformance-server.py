#!/usr/bin/env python3
"""The tools the official MCP conformance suite's server scenarios call, served by Prism.

A Prism registry behind ``McpToolServer`` over Streamable HTTP on 127.0.0.1, so every scenario
call passes Prism's whole pipeline. Usage: scripts/mcp-conformance-server.py PORT
"""

from __future__ import annotations

import sys
from typing import Any

import anyio

from prism.core import (
    AudioContent,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolPipeline,
    ToolResult,
    create_tool_registry,
)
from prism.mcp.server import HttpOptions, McpToolServer, ServeOptions, serve_tools

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAF"
    "BQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


def _result(ctx: ToolExecutionContext, name: str, *content: Any) -> ToolResult:
    return ToolResult(tool_call_id=ctx.tool_call_id, name=name, content=content)


async def simple_text(args: Any, ctx: ToolExecutionContext) -> str:
    return "This is a simple text response for testing."


async def image(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    return _result(ctx, "test_image_content", ImageContent(data=PNG, mime_type="image/png"))


async def audio(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    return _result(ctx, "test_audio_content", AudioContent(data=WAV, mime_type="audio/wav"))


async def embedded(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    text = "This is an embedded resource content."
    uri = "test://embedded-resource"
    return _result(
        ctx, "test_embedded_resource", ResourceContent(uri=uri, mime_type="text/plain", text=text)
    )


async def mixed(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    return _result(
        ctx,
        "test_multiple_content_types",
        TextContent(text="Multiple content types test:"),
        ImageContent(data=PNG, mime_type="image/png"),
        ResourceContent(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text='{"test":"data","value":123}',
        ),
    )


async def error(args: Any, ctx: ToolExecutionContext) -> str:
    raise RuntimeError("This tool intentionally returns an error for testing")


async def progress(args: Any, ctx: ToolExecutionContext) -> str:
    for step in range(3):
        await ctx.progress(step / 2, f"{step * 50}/100")
        if step < 2:
            await anyio.sleep(0.05)
    return "Progress test completed"


async def schema_2020_12(args: Any, ctx: ToolExecutionContext) -> str:
    return f"received {sorted(args)}"


SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


def _tool(name: str, execute: Any, description: str, schema: Any = None) -> ToolDefinition:
    return ToolDefinition(
        name=name, execute=execute, description=description, parameters=schema or NO_ARGS
    )


REGISTRY = create_tool_registry(
    [
        _tool("test_simple_text", simple_text, "Returns simple text content"),
        _tool("test_image_content", image, "Returns a 1x1 PNG image"),
        _tool("test_audio_content", audio, "Returns a minimal WAV clip"),
        _tool("test_embedded_resource", embedded, "Returns an embedded text resource"),
        _tool("test_multiple_content_types", mixed, "Returns text, image and resource"),
        _tool("test_error_handling", error, "Always fails"),
        _tool("test_tool_with_progress", progress, "Reports progress 0, 50, 100 of 100"),
        _tool(
            "json_schema_2020_12_tool",
            schema_2020_12,
            "Tool with JSON Schema 2020-12 features",
            SCHEMA_2020_12,
        ),
    ]
)


def main() -> None:
    server = McpToolServer(
        ToolPipeline(registry=REGISTRY), ServeOptions(name="prism-conformance-server")
    )
    # The suite's client sends no bearer token: this loopback test server opts out of auth.
    http = HttpOptions(port=int(sys.argv[1]), allow_unauthenticated=True)
    anyio.run(lambda: serve_tools(server, transport="http", http=http))


if __name__ == "__main__":
    main()
