"""The data contracts every Prism package speaks: calls, results, content, context, tools."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeAlias, final

from ._abort import AbortSignal
from ._fastinit import fast_init

__all__ = [
    "Audience",
    "AudioContent",
    "Content",
    "ContentAnnotations",
    "ErrorInfo",
    "ImageContent",
    "JsonObject",
    "JsonValue",
    "ResourceContent",
    "ResourceLinkContent",
    "TextContent",
    "ToolCall",
    "ToolDefinition",
    "ToolExecutionContext",
    "ToolHandler",
    "ToolResult",
]

JsonValue: TypeAlias = (
    None | bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
)
JsonObject: TypeAlias = Mapping[str, JsonValue]

EMPTY_MAPPING: Mapping[str, object] = MappingProxyType({})


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorInfo:
    """What went wrong, in words a model can act on; ``code`` is machine-readable."""

    message: str
    code: str | None = None
    name: str | None = None
    details: JsonObject | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call as the model emitted it. ``arguments_error`` marks unparsable arguments."""

    id: str
    name: str
    arguments: JsonObject
    arguments_error: ErrorInfo | None = None


Audience: TypeAlias = Literal["user", "assistant"]


# Content blocks. Images and audio declare the same fields rather than share a dataclass base,
# and the blocks dispatch does not build on every call keep the generated ``__init__``: each
# dataclass and each ``fast_init`` is compiled from source when this module loads (first use).
@dataclass(frozen=True, slots=True, kw_only=True)
class ContentAnnotations:
    """Who a content block is for and how much it matters (MCP ``annotations``).

    ``audience=None`` means everyone; a block whose audience leaves out ``"assistant"`` is not
    rendered for the model. ``priority`` runs from 0 (optional) to 1 (required).
    """

    audience: tuple[Audience, ...] | None = None
    priority: float | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TextContent:
    """A block of text."""

    text: str
    annotations: ContentAnnotations | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImageContent:
    """An image as base64 ``data`` of one ``mime_type``."""

    data: str
    mime_type: str
    annotations: ContentAnnotations | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AudioContent:
    """Audio as base64 ``data`` of one ``mime_type``."""

    data: str
    mime_type: str
    annotations: ContentAnnotations | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceContent:
    """An embedded resource: text or base64 ``blob``."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None
    annotations: ContentAnnotations | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceLinkContent:
    """A link to a resource the host may fetch."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: ContentAnnotations | None = None


Content: TypeAlias = (
    TextContent | ImageContent | AudioContent | ResourceContent | ResourceLinkContent
)
CONTENT_TYPES = (TextContent, ImageContent, AudioContent, ResourceContent, ResourceLinkContent)


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """The outcome of one call: content blocks, a JSON ``value``, or an ``error``."""

    tool_call_id: str
    name: str
    content: tuple[Content, ...] = ()
    value: JsonValue = None
    error: ErrorInfo | None = None
    metadata: Mapping[str, object] = field(default_factory=lambda: EMPTY_MAPPING)

    @property
    def is_error(self) -> bool:
        """True when the call failed, was blocked or was aborted."""
        return self.error is not None


async def _no_progress(progress: float | None, message: str | None) -> None:
    return None


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionContext:
    """What a handler may know about its call: ids, the abort signal, a progress callback."""

    session_id: str
    run_id: str
    tool_call_id: str
    signal: AbortSignal
    metadata: Mapping[str, object] = field(default_factory=lambda: EMPTY_MAPPING)
    progress: Callable[[float | None, str | None], Awaitable[None]] = _no_progress


ToolReturn: TypeAlias = "ToolResult | str | Sequence[Content] | JsonValue"
"""What a handler may return: a result, text, content blocks, or a JSON value (or ``None``)."""

ToolHandler: TypeAlias = Callable[
    [JsonObject, ToolExecutionContext], "ToolReturn | Awaitable[ToolReturn]"
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinition:
    """A tool: its name, handler, model-facing description and JSON Schema ``parameters``.

    ``exclusive`` tools run alone: a model turn that calls one is dispatched one call at a time.
    Side-effect hints for durable execution: ``read_only`` tools change nothing, ``idempotent``
    ones may run twice with the effect of once; only such calls are re-run after a crash.
    """

    name: str
    execute: ToolHandler
    description: str | None = None
    parameters: JsonObject | None = None
    exclusive: bool = False
    read_only: bool = False
    idempotent: bool = False
    metadata: Mapping[str, object] = field(default_factory=lambda: EMPTY_MAPPING)
