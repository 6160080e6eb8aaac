"""Mapping an MCP ``CallToolResult`` onto a Prism ``ToolResult`` (all five content types)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic_core

from mcp import types
from prism.core import (
    AudioContent,
    Content,
    ContentAnnotations,
    ErrorInfo,
    ImageContent,
    JsonValue,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolResult,
)
from prism.core.lowlevel import for_assistant

from ._errors import MCP_RESULT_TOO_LARGE, MCP_TOOL_ERROR, clip

__all__ = ["MAX_ERROR_META_BYTES", "error_result", "map_call_result"]

MAX_ERROR_META_BYTES = 16_384
"""A remote error's ``_meta`` larger than this (as JSON) is left out of ``error.details``."""


def _size(text: str | None) -> int:
    if text is None:
        return 0
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def _annotations(block: Any) -> ContentAnnotations | None:
    """MCP ``annotations`` (audience, priority) as core's; ``lastModified`` is not carried."""
    found = getattr(block, "annotations", None)
    if found is None or (found.audience is None and found.priority is None):
        return None
    audience = tuple(found.audience) if found.audience is not None else None
    return ContentAnnotations(audience=audience, priority=found.priority)


def _block(block: object) -> tuple[Content | None, int]:
    """One MCP content block as Prism content, with its size in bytes (``None``: unknown type)."""
    notes = _annotations(block)
    if isinstance(block, types.TextContent):
        return TextContent(text=block.text, annotations=notes), _size(block.text)
    if isinstance(block, types.ImageContent):
        image = ImageContent(data=block.data, mime_type=block.mime_type, annotations=notes)
        return image, len(block.data)
    if isinstance(block, types.AudioContent):
        audio = AudioContent(data=block.data, mime_type=block.mime_type, annotations=notes)
        return audio, len(block.data)
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        text = res.text if isinstance(res, types.TextResourceContents) else None
        blob = res.blob if isinstance(res, types.BlobResourceContents) else None
        mapped = ResourceContent(
            uri=res.uri, mime_type=res.mime_type, text=text, blob=blob, annotations=notes
        )
        return mapped, _size(res.uri) + _size(text) + _size(blob)
    if isinstance(block, types.ResourceLink):
        link = ResourceLinkContent(
            uri=block.uri,
            name=block.name,
            description=block.description,
            mime_type=block.mime_type,
            size=block.size,
            annotations=notes,
        )
        return link, _size(block.uri) + _size(block.name) + _size(block.description)
    return None, 0


def error_result(
    call_id: str, name: str, code: str, message: str, details: Mapping[str, Any]
) -> ToolResult:
    """An error ``ToolResult`` with ``code``; the message is clipped to 8 KiB."""
    error = ErrorInfo(message=clip(message), code=code, details=dict(details))
    return ToolResult(tool_call_id=call_id, name=name, error=error)


def _error_details(meta: dict[str, Any] | None, details: Mapping[str, Any]) -> dict[str, Any]:
    """``details`` plus the remote error's ``_meta`` (its code, retry hints) as ``mcp_meta``."""
    out = dict(details)
    if not meta:
        return out
    encoded = pydantic_core.to_json(meta, fallback=str)
    if len(encoded) > MAX_ERROR_META_BYTES:
        out["mcp_meta_omitted"] = (
            f"the error's _meta is {len(encoded)} bytes, over {MAX_ERROR_META_BYTES}"
        )
    else:
        out["mcp_meta"] = pydantic_core.from_json(encoded)
    return out


def _tool_error(
    content: list[Content], details: Mapping[str, Any], meta: dict[str, Any] | None = None
) -> tuple[list[Content], ErrorInfo]:
    """The error of an ``isError`` result: its text said once, in ``error.message``.

    Text blocks move into the message; when they are too long for it (8 KiB) they stay in the
    content and the message says so, so the text is never rendered twice. The result's
    ``_meta`` is kept on ``error.details["mcp_meta"]``.
    """
    texts = [c for c in content if isinstance(c, TextContent) and for_assistant(c)]
    said = "\n".join(t.text for t in texts).strip()
    tool = details.get("mcp_tool_name")
    if not said:
        message = f"MCP tool {tool!r} reported an error"
    elif clip(said) == said:
        message = said
        content = [c for c in content if not any(c is t for t in texts)]
    else:
        message = f"MCP tool {tool!r} reported an error (its text is in the content)"
    error_details = _error_details(meta, details)
    return content, ErrorInfo(message=message, code=MCP_TOOL_ERROR, details=error_details)


def map_call_result(
    result: types.CallToolResult,
    *,
    call_id: str,
    name: str,
    max_bytes: int,
    details: Mapping[str, Any],
) -> ToolResult:
    """Map content, ``structuredContent`` (→ ``value``) and ``isError`` (→ ``error``), bounded.

    The size that counts is what is rendered and kept once: the content blocks, or the
    structured value when there is no content (it then is what the model sees).
    """
    content: list[Content] = []
    total = 0
    for block in result.content:
        mapped, size = _block(block)
        total += size
        if mapped is not None:
            content.append(mapped)
    value: JsonValue = result.structured_content
    if value is not None and not result.content:
        total += len(pydantic_core.to_json(value))
    if total > max_bytes:
        message = (
            f"the result of MCP tool {details.get('mcp_tool_name')!r} is {total} bytes, "
            f"over max_result_bytes={max_bytes}"
        )
        return error_result(call_id, name, MCP_RESULT_TOO_LARGE, message, details)
    error = None
    if result.is_error:
        content, error = _tool_error(content, details, result.meta)
    return ToolResult(
        tool_call_id=call_id,
        name=name,
        content=tuple(content),
        value=value,
        error=error,
        metadata=dict(details),
    )
