"""Span and metric attributes: the GenAI semantic conventions plus Prism's own ``prism.*``."""

from __future__ import annotations

import json
from collections.abc import Mapping

from prism.core import ErrorInfo, ToolCall, ToolResult, render_tool_result

__all__ = [
    "OPERATION",
    "call_attributes",
    "clip",
    "error_type",
    "json_text",
    "result_attributes",
    "tool_attributes",
]

OPERATION = "execute_tool"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marked when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 16)] + "…[truncated]"


def json_text(value: object, limit: int) -> str:
    """A JSON rendering of ``value`` for an attribute, bounded; never raises."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except Exception as exc:  # a hostile object inside a value must not break dispatch
        text = f"<unrenderable {type(exc).__name__}>"
    return clip(text, limit)


def call_attributes(call: ToolCall, session_id: str, run_id: str) -> dict[str, str]:
    """What every tool span carries from the call itself."""
    attributes = {
        "gen_ai.operation.name": OPERATION,
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function",
    }
    if session_id:
        attributes["prism.session.id"] = session_id
    if run_id:
        attributes["prism.run.id"] = run_id
    return attributes


def tool_attributes(description: str | None, metadata: Mapping[str, object]) -> dict[str, str]:
    """What the tool definition adds: its description and, for MCP tools, the server id."""
    attributes: dict[str, str] = {}
    if description:
        attributes["gen_ai.tool.description"] = clip(description, 1024)
    server = metadata.get("mcp_server_id")
    if isinstance(server, str):
        attributes["gen_ai.tool.type"] = "extension"
        attributes["prism.mcp.server_id"] = server
    return attributes


def error_type(error: ErrorInfo) -> str:
    """``error.type``: the error's code, else its exception name, else ``"error"``."""
    return error.code or error.name or "error"


def result_attributes(result: ToolResult, record: bool, limit: int) -> dict[str, str | bool]:
    """What a finished call adds: whether the tool returned an error, truncation, the result."""
    attributes: dict[str, str | bool] = {}
    if result.error is not None:
        attributes["error.type"] = error_type(result.error)
        attributes["prism.result.is_error"] = True
    if result.metadata.get("truncated") is True:
        attributes["prism.result.truncated"] = True
    if record:
        attributes["gen_ai.tool.call.result"] = clip(render_tool_result(result), limit)
    return attributes
