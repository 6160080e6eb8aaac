"""Prism's results in the shapes pydantic-ai expects, and back."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pydantic_core import to_jsonable_python

from prism.core import AudioContent, ImageContent, TextContent, ToolResult, render_tool_result
from pydantic_ai import BinaryContent, ModelRetry, RunContext

__all__ = ["RETRYABLE", "to_model_return", "to_prism_value"]

RETRYABLE = frozenset({"invalid_arguments", "validation_failed"})
"""Blocked reasons the model can fix by calling again: sent as a pydantic-ai retry prompt."""


def to_model_return(result: ToolResult, ctx: RunContext[Any], max_retries: int) -> Any:
    """What the model sees for ``result``.

    Invalid arguments become a retry prompt while the tool has retries left (then the error text,
    so a model that keeps failing never aborts the host's run); other errors and refusals reach
    the model as Prism's error text; media blocks become ``BinaryContent``.
    """
    error = result.error
    if error is not None:
        if error.code in RETRYABLE and ctx.retries.get(result.name, 0) < max_retries:
            raise ModelRetry(error.message)
        return render_tool_result(result)
    media = [block for block in result.content if isinstance(block, (ImageContent, AudioContent))]
    if not media:
        if not result.content and result.value is not None:
            return result.value
        return render_tool_result(result)
    parts: list[Any] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, (ImageContent, AudioContent)):
            parts.append(_binary(block))
    return parts


def _binary(block: ImageContent | AudioContent) -> BinaryContent | str:
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{block.mime_type} content could not be decoded]"
    return BinaryContent(data=data, media_type=block.mime_type)


def to_prism_value(raw: object) -> object:
    """A pydantic-ai tool's return value as something a Prism handler may return."""
    if raw is None or isinstance(raw, str):
        return raw
    try:
        return to_jsonable_python(raw, fallback=str)
    except Exception:  # a hostile __repr__/__str__ in the value: keep only its type
        return f"<{type(raw).__name__}>"
