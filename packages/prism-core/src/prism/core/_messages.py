"""Transcript messages and the provider protocol of the minimal agent loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, final, runtime_checkable

from ._types import Content, ErrorInfo, JsonObject, ToolCall, ToolResult

__all__ = [
    "AssistantMessage",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "Provider",
    "RunResult",
    "RunStatus",
    "ToolMessage",
    "ToolSpec",
    "UserMessage",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    """What the user said: plain text or content blocks."""

    content: str | tuple[Content, ...]
    role: Literal["user"] = "user"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    """What the model said, and the tool calls it asked for."""

    content: tuple[Content, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMessage:
    """The result of one tool call, answering the assistant message before it."""

    result: ToolResult
    role: Literal["tool"] = "tool"


Message: TypeAlias = UserMessage | AssistantMessage | ToolMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str | None = None
    parameters: JsonObject | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """One generation request: the transcript so far and the tools on offer."""

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    """One generation: text/content and any tool calls."""

    content: tuple[Content, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()


@runtime_checkable
class Provider(Protocol):
    """A model: turns a request into a response."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Generate the next assistant turn."""
        ...


RunStatus: TypeAlias = Literal["succeeded", "aborted", "failed"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """The finished transcript; ``finish_reason`` is ``stop``, ``tool_round_limit``,
    ``aborted`` or ``error``."""

    messages: tuple[Message, ...]
    status: RunStatus
    finish_reason: str
    error: ErrorInfo | None = None

    @property
    def final_text(self) -> str:
        """The text of the last assistant message (empty if none)."""
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                return "\n".join(getattr(b, "text", "") for b in message.content).strip()
        return ""


def as_messages(prompt: str | Sequence[Message]) -> list[Message]:
    """A prompt string becomes one user message; a message sequence is copied."""
    if isinstance(prompt, str):
        return [UserMessage(content=prompt)]
    return list(prompt)
