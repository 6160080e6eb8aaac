"""Plain-data forms of calls, results and messages, as recorded in DBOS steps.

DBOS pickles what a step returns; core's results may carry read-only mappings (which do not
pickle) and arbitrary metadata. Recording plain dicts and lists keeps the history readable by
any worker version and independent of class layouts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from prism.core import (
    AudioContent,
    Content,
    ContentAnnotations,
    ErrorInfo,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolCall,
    ToolResult,
)
from prism.core.agent import (
    AssistantMessage,
    Message,
    ModelResponse,
    RunResult,
    ToolMessage,
    UserMessage,
)

__all__ = [
    "Plain",
    "decode_call",
    "decode_messages",
    "decode_response",
    "decode_result",
    "decode_run",
    "encode_call",
    "encode_messages",
    "encode_response",
    "encode_result",
    "encode_run",
    "plain",
]

Plain: TypeAlias = dict[str, Any]

_CONTENT: dict[str, type[Any]] = {
    "text": TextContent,
    "image": ImageContent,
    "audio": AudioContent,
    "resource": ResourceContent,
    "resource_link": ResourceLinkContent,
}
_CONTENT_KIND = {cls: kind for kind, cls in _CONTENT.items()}


def plain(value: object) -> Any:
    """JSON-shaped copy of ``value``: mappings become dicts, sequences lists, others ``repr``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return repr(value)


def _content(block: Content) -> Plain:
    fields = {k: getattr(block, k) for k in block.__dataclass_fields__}
    notes = fields.pop("annotations", None)
    if notes is not None:
        audience = None if notes.audience is None else list(notes.audience)
        fields["annotations"] = {"audience": audience, "priority": notes.priority}
    return {"kind": _CONTENT_KIND[type(block)], **fields}


def _uncontent(data: Plain) -> Content:
    fields = dict(data)
    cls = _CONTENT[fields.pop("kind")]
    notes = fields.pop("annotations", None)
    if notes is not None:
        audience = notes.get("audience")
        fields["annotations"] = ContentAnnotations(
            audience=None if audience is None else tuple(audience), priority=notes.get("priority")
        )
    block: Content = cls(**fields)
    return block


def _error(error: ErrorInfo | None) -> Plain | None:
    if error is None:
        return None
    return {
        "message": error.message, "code": error.code, "name": error.name,
        "details": plain(error.details) if error.details is not None else None,
    }  # fmt: skip


def _unerror(data: Plain | None) -> ErrorInfo | None:
    return None if data is None else ErrorInfo(**data)


def encode_call(call: ToolCall) -> Plain:
    """A ``ToolCall`` as plain data."""
    return {
        "id": call.id, "name": call.name, "arguments": plain(call.arguments),
        "arguments_error": _error(call.arguments_error),
    }  # fmt: skip


def decode_call(data: Plain) -> ToolCall:
    """The ``ToolCall`` ``encode_call`` described."""
    return ToolCall(
        id=data["id"], name=data["name"], arguments=data["arguments"],
        arguments_error=_unerror(data["arguments_error"]),
    )  # fmt: skip


def encode_result(result: ToolResult) -> Plain:
    """A ``ToolResult`` as plain data (metadata values that are not JSON become ``repr``)."""
    return {
        "tool_call_id": result.tool_call_id,
        "name": result.name,
        "content": [_content(b) for b in result.content],
        "value": plain(result.value),
        "error": _error(result.error),
        "metadata": plain(result.metadata),
    }


def decode_result(data: Plain) -> ToolResult:
    """The ``ToolResult`` ``encode_result`` described."""
    return ToolResult(
        tool_call_id=data["tool_call_id"],
        name=data["name"],
        content=tuple(_uncontent(b) for b in data["content"]),
        value=data["value"],
        error=_unerror(data["error"]),
        metadata=data["metadata"],
    )


def _message(message: Message) -> Plain:
    if isinstance(message, UserMessage):
        content = message.content
        text = content if isinstance(content, str) else None
        blocks = [] if isinstance(content, str) else [_content(b) for b in content]
        return {"role": "user", "text": text, "content": blocks}
    if isinstance(message, AssistantMessage):
        return {
            "role": "assistant",
            "content": [_content(b) for b in message.content],
            "tool_calls": [encode_call(c) for c in message.tool_calls],
        }
    return {"role": "tool", "result": encode_result(message.result)}


def _unmessage(data: Plain) -> Message:
    role = data["role"]
    if role == "user":
        text = data["text"]
        return UserMessage(
            content=text if text is not None else tuple(_uncontent(b) for b in data["content"])
        )
    if role == "assistant":
        return AssistantMessage(
            content=tuple(_uncontent(b) for b in data["content"]),
            tool_calls=tuple(decode_call(c) for c in data["tool_calls"]),
        )
    return ToolMessage(result=decode_result(data["result"]))


def encode_messages(messages: list[Message] | tuple[Message, ...]) -> list[Plain]:
    """A transcript as plain data."""
    return [_message(m) for m in messages]


def decode_messages(data: list[Plain]) -> list[Message]:
    """The transcript ``encode_messages`` described."""
    return [_unmessage(m) for m in data]


def encode_response(response: ModelResponse) -> Plain:
    """A ``ModelResponse`` as plain data."""
    return {
        "content": [_content(b) for b in response.content],
        "tool_calls": [encode_call(c) for c in response.tool_calls],
    }


def decode_response(data: Plain) -> ModelResponse:
    """The ``ModelResponse`` ``encode_response`` described."""
    return ModelResponse(
        content=tuple(_uncontent(b) for b in data["content"]),
        tool_calls=tuple(decode_call(c) for c in data["tool_calls"]),
    )


def encode_run(result: RunResult) -> Plain:
    """A ``RunResult`` as plain data."""
    return {
        "messages": encode_messages(result.messages),
        "status": result.status,
        "finish_reason": result.finish_reason,
        "error": _error(result.error),
    }


def decode_run(data: Plain) -> RunResult:
    """The ``RunResult`` ``encode_run`` described."""
    return RunResult(
        messages=tuple(decode_messages(data["messages"])),
        status=data["status"],
        finish_reason=data["finish_reason"],
        error=_unerror(data["error"]),
    )
