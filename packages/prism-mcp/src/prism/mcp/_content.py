"""Mapping an MCP ``CallToolResult`` onto a Prism ``ToolResult`` (all five content types)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic_core

from mcp import types
from prism.core import (
    AudioContent,
    Content,
    ErrorInfo,
    ImageContent,
    JsonValue,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolResult,
)

from ._errors import MCP_RESULT_TOO_LARGE, MCP_TOOL_ERROR, clip

__all__ = ["error_result", "map_call_result"]

_JSON_START = frozenset('{["-0123456789tfn')


def _size(text: str | None) -> int:
    if text is None:
        return 0
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def _block(block: object) -> tuple[Content | None, int]:
    """One MCP content block as Prism content, with its size in bytes (``None``: unknown type)."""
    if isinstance(block, types.TextContent):
        return TextContent(text=block.text), _size(block.text)
    if isinstance(block, types.ImageContent):
        return ImageContent(data=block.data, mime_type=block.mime_type), len(block.data)
    if isinstance(block, types.AudioContent):
        return AudioContent(data=block.data, mime_type=block.mime_type), len(block.data)
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        text = res.text if isinstance(res, types.TextResourceContents) else None
        blob = res.blob if isinstance(res, types.BlobResourceContents) else None
        mapped = ResourceContent(uri=res.uri, mime_type=res.mime_type, text=text, blob=blob)
        return mapped, _size(res.uri) + _size(text) + _size(blob)
    if isinstance(block, types.ResourceLink):
        link = ResourceLinkContent(
            uri=block.uri,
            name=block.name,
            description=block.description,
            mime_type=block.mime_type,
            size=block.size,
        )
        return link, _size(block.uri) + _size(block.name) + _size(block.description)
    return None, 0


def _repeats(text: str, value: Any) -> bool:
    """Whether ``text`` only repeats ``value`` (or the ``{"result": x}`` wrapping of a plain x)."""
    candidates = [value]
    if isinstance(value, dict) and len(value) == 1 and "result" in value:
        candidates.append(value["result"])
    if any(isinstance(c, str) and c == text for c in candidates):
        return True
    stripped = text.lstrip()
    if not stripped or stripped[0] not in _JSON_START:
        return False
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return any(parsed == c for c in candidates)


def error_result(
    call_id: str, name: str, code: str, message: str, details: Mapping[str, Any]
) -> ToolResult:
    """An error ``ToolResult`` with ``code``; the message is clipped to 8 KiB."""
    error = ErrorInfo(message=clip(message), code=code, details=dict(details))
    return ToolResult(tool_call_id=call_id, name=name, error=error)


def map_call_result(
    result: types.CallToolResult,
    *,
    call_id: str,
    name: str,
    max_bytes: int,
    drop_duplicate_text: bool,
    details: Mapping[str, Any],
) -> ToolResult:
    """Map content, ``structuredContent`` (→ ``value``) and ``isError`` (→ ``error``), bounded."""
    content: list[Content] = []
    total = 0
    for block in result.content:
        mapped, size = _block(block)
        total += size
        if mapped is not None:
            content.append(mapped)
    value: JsonValue = result.structured_content
    if value is not None:
        total += len(pydantic_core.to_json(value))
    if total > max_bytes:
        message = (
            f"the result of MCP tool {details.get('mcp_tool_name')!r} is {total} bytes, "
            f"over max_result_bytes={max_bytes}"
        )
        return error_result(call_id, name, MCP_RESULT_TOO_LARGE, message, details)
    texts = [c for c in content if isinstance(c, TextContent)]
    if (
        drop_duplicate_text
        and not result.is_error
        and value is not None
        and len(texts) == 1
        and _repeats(texts[0].text, value)
    ):
        content.remove(texts[0])
    error = None
    if result.is_error:
        said = "\n".join(t.text for t in texts).strip()
        message = said or f"MCP tool {details.get('mcp_tool_name')!r} reported an error"
        error = ErrorInfo(message=clip(message), code=MCP_TOOL_ERROR, details=dict(details))
    return ToolResult(
        tool_call_id=call_id,
        name=name,
        content=tuple(content),
        value=value,
        error=error,
        metadata=dict(details),
    )
