"""Prism core: contracts, the dispatch pipeline, policies and a minimal agent loop.

Stdlib only; every async function runs unchanged on asyncio and trio.
"""

from ._abort import AbortController, AbortError, AbortSignal
from ._execution import (
    ExecutionAction,
    ExecutionDecision,
    ExecutionDeniedError,
    ExecutionPolicy,
    assert_execution_allowed,
)
from ._function_tools import to_strict_json_schema, tool
from ._types import (
    AudioContent,
    Content,
    ErrorInfo,
    ImageContent,
    JsonObject,
    JsonValue,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolHandler,
    ToolResult,
)
from ._validation import (
    ToolArgumentValidationError,
    ToolArgumentValidationResult,
    ToolArgumentValidator,
    ToolValidator,
    create_tool_parameter_validator,
)

__all__ = [
    "AbortController",
    "AbortError",
    "AbortSignal",
    "AudioContent",
    "Content",
    "ErrorInfo",
    "ExecutionAction",
    "ExecutionDecision",
    "ExecutionDeniedError",
    "ExecutionPolicy",
    "ImageContent",
    "JsonObject",
    "JsonValue",
    "ResourceContent",
    "ResourceLinkContent",
    "TextContent",
    "ToolArgumentValidationError",
    "ToolArgumentValidationResult",
    "ToolArgumentValidator",
    "ToolCall",
    "ToolDefinition",
    "ToolExecutionContext",
    "ToolHandler",
    "ToolResult",
    "ToolValidator",
    "assert_execution_allowed",
    "create_tool_parameter_validator",
    "to_strict_json_schema",
    "tool",
]
