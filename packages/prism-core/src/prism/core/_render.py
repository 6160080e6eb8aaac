"""Turning a ``ToolResult`` into the text a provider sends to a model."""

from __future__ import annotations

import json

from ._types import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolResult,
)

__all__ = ["for_assistant", "render_tool_result"]

EMPTY_RESULT_TEXT = "(no output)"
HIDDEN_RESULT_TEXT = "(no output for the assistant: the content is meant for the user)"


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


def for_assistant(block: Content) -> bool:
    """False when the block's annotations name an audience that leaves out the assistant."""
    annotations = block.annotations
    return (
        annotations is None or annotations.audience is None or ("assistant" in annotations.audience)
    )


def render_tool_result(result: ToolResult) -> str:
    """The content blocks (text as is, others summarized), then ``Error: <message>``.

    One rule: the model sees the content; ``value`` is for programs and is rendered (compact
    JSON) only when there are no content blocks. Blocks whose audience leaves out the assistant
    are left out. Never returns ``"null"`` or ``""`` (several providers reject empty messages).
    """
    parts: list[str] = []
    for block in result.content:
        if for_assistant(block):
            parts.append(block.text if isinstance(block, TextContent) else _summarize(block))
    if not result.content and result.value is not None:
        parts.append(
            json.dumps(result.value, separators=(",", ":"), ensure_ascii=False, default=str)
        )
    if result.error is not None:
        parts.append(f"Error: {result.error.message}")
    if parts:
        return "\n".join(parts)
    return HIDDEN_RESULT_TEXT if result.content else EMPTY_RESULT_TEXT
