"""Find the span an agent framework already opened for a tool call, so Prism enriches it."""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry.trace import Span

from prism.core import ToolCall

from ._attributes import OPERATION

__all__ = ["framework_tool_span"]


def framework_tool_span(call: ToolCall) -> Span | None:
    """The current span when it is a framework's ``execute_tool`` span for ``call``, else None.

    A match is a recording span whose ``gen_ai.operation.name`` is ``execute_tool`` and whose
    ``gen_ai.tool.name`` is the call's; when it carries ``gen_ai.tool.call.id`` that must be the
    call's id too (pydantic-ai sets it; the Agents SDK's function spans have none). Only spans
    whose attributes can be read (the OpenTelemetry SDK's) can match.
    """
    span = trace.get_current_span()
    if not span.is_recording():
        return None
    attributes = getattr(span, "attributes", None)
    if not isinstance(attributes, Mapping):
        return None
    if attributes.get("gen_ai.operation.name") != OPERATION:
        return None
    if attributes.get("gen_ai.tool.name") != call.name:
        return None
    call_id = attributes.get("gen_ai.tool.call.id")
    if call_id is not None and call_id != call.id:
        return None
    if attributes.get("prism.outcome") is not None:
        return None  # a span Prism already ended a call in (a nested dispatch of the same call)
    return span
