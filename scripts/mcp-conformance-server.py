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
    ToolRegistry,
    ToolResult,
)
from prism.mcp.server import (
    HttpOptions,
    McpToolServer,
    ServeOptions,
    ask_client,
    log_to_client,
    serve_tools,
)

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


async def with_logging(args: Any, ctx: ToolExecutionContext) -> str:
    for step, level in enumerate(("info", "info", "info")):
        await log_to_client(level, f"Tool execution step {step + 1}", logger="conformance")  # type: ignore[arg-type]
        await anyio.sleep(0.05)
    return "Logging test completed"


async def _ask(message: str, properties: dict[str, Any], required: list[str]) -> str:
    schema = {"type": "object", "properties": properties, "required": required}
    answer = await ask_client(message, schema, timeout_seconds=30)
    if answer is None:
        return "no one could be asked"
    return f"User response: action={answer.action}, content={answer.content}"


async def elicitation(args: Any, ctx: ToolExecutionContext) -> str:
    properties = {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    }
    return await _ask(str(args.get("message", "Please provide your information")), properties,
                      ["username", "email"])  # fmt: skip


async def elicitation_defaults(args: Any, ctx: ToolExecutionContext) -> str:
    properties = {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status",
                   "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    }  # fmt: skip
    return await _ask("Please review and update the form fields with defaults", properties, [])


def _titled(values: list[str]) -> list[dict[str, str]]:
    return [{"const": value, "title": value.replace("value", "Option ")} for value in values]


async def elicitation_enums(args: Any, ctx: ToolExecutionContext) -> str:
    options = ["option1", "option2", "option3"]
    values = ["value1", "value2", "value3"]
    properties = {
        "untitledSingle": {"type": "string", "enum": options},
        "titledSingle": {"type": "string", "oneOf": _titled(values)},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": options}},
        "titledMulti": {"type": "array", "items": {"anyOf": _titled(values)}},
    }  # fmt: skip
    return await _ask("Please select options from the enum fields", properties, [])


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


REGISTRY = ToolRegistry(
    [
        _tool("test_simple_text", simple_text, "Returns simple text content"),
        _tool("test_image_content", image, "Returns a 1x1 PNG image"),
        _tool("test_audio_content", audio, "Returns a minimal WAV clip"),
        _tool("test_embedded_resource", embedded, "Returns an embedded text resource"),
        _tool("test_multiple_content_types", mixed, "Returns text, image and resource"),
        _tool("test_error_handling", error, "Always fails"),
        _tool("test_tool_with_progress", progress, "Reports progress 0, 50, 100 of 100"),
        _tool("test_tool_with_logging", with_logging, "Sends log messages while it runs"),
        _tool(
            "test_elicitation",
            elicitation,
            "Asks the user for input",
            {"type": "object", "properties": {"message": {"type": "string"}}},
        ),
        _tool(
            "test_elicitation_sep1034_defaults",
            elicitation_defaults,
            "Asks with default values (SEP-1034)",
        ),
        _tool(
            "test_elicitation_sep1330_enums", elicitation_enums, "Asks with enum schemas (SEP-1330)"
        ),
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
