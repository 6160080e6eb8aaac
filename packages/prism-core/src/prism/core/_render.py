"""Turning a ``ToolResult`` into the text a provider sends to a model."""

from __future__ import annotations

import json

from ._types import (
    AudioContent,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolResult,
)

__all__ = ["render_tool_result"]

EMPTY_RESULT_TEXT = "(no output)"


def _decoded_size(data: str) -> int:
    stripped = data.rstrip("=")
    return len(stripped) * 3 // 4 if data else 0


def _summarize(block: object) -> str:
    if isinstance(block, (ImageContent, AudioContent)):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, ResourceContent):
        if block.text is not None:
            return block.text
        size = _decoded_size(block.blob or "")
        return (
            f"[resource {block.uri} {block.mime_type or 'application/octet-stream'}, {size} bytes]"
        )
    if isinstance(block, ResourceLinkContent):
        described = f": {block.description}" if block.description else ""
        return f"[resource link {block.name} <{block.uri}>{described}]"
    return f"[{type(block).__name__}]"


def render_tool_result(result: ToolResult) -> str:
    """Text blocks joined by newlines, then ``value`` as compact JSON, then ``Error: <message>``.

    Non-text blocks are summarized. Never returns ``"null"``; an empty result renders as
    ``(no output)`` because several providers reject empty tool messages.
    """
    parts: list[str] = []
    for block in result.content:
        parts.append(block.text if isinstance(block, TextContent) else _summarize(block))
    if result.value is not None:
        parts.append(
            json.dumps(result.value, separators=(",", ":"), ensure_ascii=False, default=str)
        )
    if result.error is not None:
        parts.append(f"Error: {result.error.message}")
    return "\n".join(parts) if parts else EMPTY_RESULT_TEXT
