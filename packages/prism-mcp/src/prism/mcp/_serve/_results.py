"""A Prism ``ToolResult`` as an MCP ``CallToolResult``, faithfully and within a byte bound."""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from prism.core import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = ["ERROR_META_KEY", "to_call_result", "too_large"]

ERROR_META_KEY = "dev.prism/error"
"""``_meta`` key of an error result: Prism's error ``code`` (a blocked reason, ``aborted``…)."""


def _size(text: str | None) -> int:
    if text is None:
        return 0
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def _block(block: Content) -> tuple[types.ContentBlock, int]:
    if isinstance(block, TextContent):
        return types.TextContent(type="text", text=block.text), _size(block.text)
    if isinstance(block, ImageContent):
        mapped = types.ImageContent(type="image", data=block.data, mime_type=block.mime_type)
        return mapped, len(block.data)
    if isinstance(block, AudioContent):
        audio = types.AudioContent(type="audio", data=block.data, mime_type=block.mime_type)
        return audio, len(block.data)
    if isinstance(block, ResourceContent):
        return _resource(block), _size(block.uri) + _size(block.text) + _size(block.blob)
    link = types.ResourceLink(
        type="resource_link", uri=block.uri, name=block.name, description=block.description,
        mime_type=block.mime_type, size=block.size,
    )  # fmt: skip
    return link, _size(block.uri) + _size(block.name) + _size(block.description)


def _resource(block: ResourceContent) -> types.EmbeddedResource:
    contents: types.TextResourceContents | types.BlobResourceContents
    if block.blob is not None:
        contents = types.BlobResourceContents(
            uri=block.uri, mime_type=block.mime_type, blob=block.blob
        )
    else:
        contents = types.TextResourceContents(
            uri=block.uri, mime_type=block.mime_type, text=block.text or ""
        )
    return types.EmbeddedResource(type="resource", resource=contents)


def too_large(result: ToolResult, size: int, limit: int) -> types.CallToolResult:
    """The error a client gets instead of a result over ``max_result_bytes``."""
    message = (
        f"the result of {result.name!r} is {size} bytes, over this server's limit of {limit} "
        "(ServeOptions.max_result_bytes)"
    )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        is_error=True,
        _meta={ERROR_META_KEY: {"code": "result_too_large"}},
    )


def to_call_result(
    result: ToolResult, *, max_bytes: int, structured_objects_only: bool
) -> types.CallToolResult:
    """Content blocks as they are; a structured value as ``structuredContent`` plus its JSON text
    twin when there is no text; an error as ``isError`` with its message and Prism's code.

    ``structured_objects_only``: the negotiated protocol allows only objects there (2025 era),
    so any other value travels as text alone. Over ``max_bytes`` (counted as sent), a short
    error replaces the result.
    """
    blocks: list[types.ContentBlock] = []
    total = 0
    for block in result.content:
        mapped, size = _block(block)
        blocks.append(mapped)
        total += size
    structured: Any = None
    if result.error is None and result.value is not None:
        text = json.dumps(result.value, ensure_ascii=False, default=str)
        if not any(isinstance(b, TextContent) for b in result.content):
            blocks.append(types.TextContent(type="text", text=text))
            total += _size(text)
        if isinstance(result.value, dict) or not structured_objects_only:
            structured = result.value
            total += _size(text)
    meta: dict[str, Any] | None = None
    if result.error is not None:
        message = result.error.message
        blocks.insert(0, types.TextContent(type="text", text=message))
        total += _size(message)
        meta = {ERROR_META_KEY: {"code": result.error.code, "name": result.error.name}}
    if total > max_bytes:
        return too_large(result, total, max_bytes)
    return types.CallToolResult(
        content=blocks, structured_content=structured, is_error=result.error is not None, _meta=meta
    )
