"""Prism's results in the shapes the Agents SDK sends to the model."""

from __future__ import annotations

import json
from typing import Any

from agents.tool import ToolOutputImage, ToolOutputText

from prism.core import AudioContent, ImageContent, TextContent, ToolResult, render_tool_result

__all__ = ["to_model_output"]


def to_model_output(result: ToolResult) -> Any:
    """What the model sees: text (errors and refusals as Prism's ``Error: …`` text, which the
    SDK passes on), a structured value as JSON, images as data-URL image outputs."""
    if result.error is not None:
        return render_tool_result(result)
    if any(isinstance(block, ImageContent) for block in result.content):
        return [_block(block) for block in result.content]
    if not result.content and result.value is not None:
        return json.dumps(result.value, ensure_ascii=False, default=str)
    return render_tool_result(result)


def _block(block: object) -> ToolOutputText | ToolOutputImage:
    if isinstance(block, ImageContent):
        return ToolOutputImage(image_url=f"data:{block.mime_type};base64,{block.data}")
    if isinstance(block, TextContent):
        return ToolOutputText(text=block.text)
    if isinstance(block, AudioContent):
        return ToolOutputText(text=f"[{block.mime_type} audio omitted]")
    return ToolOutputText(text=render_tool_result_block(block))


def render_tool_result_block(block: object) -> str:
    """A non-text, non-media block rendered alone, as Prism renders it in a result."""
    result = ToolResult(tool_call_id="", name="", content=(block,))  # type: ignore[arg-type]
    return render_tool_result(result)
