"""Prism core: contracts, the dispatch pipeline, policies and a minimal agent loop.

Stdlib only; every async function runs unchanged on asyncio and trio.
"""

from ._abort import AbortController, AbortError, AbortSignal
from ._agent import Agent, RunLimits, RunOptions, create_agent
from ._batch import LoopOptions, dispatch_tool_calls_in_order, resolve_tool_concurrency
from ._dispatch import dispatch_tool_call
from ._execution import (
    ExecutionAction,
    ExecutionDecision,
    ExecutionDeniedError,
    ExecutionPolicy,
    assert_execution_allowed,
)
from ._extensions import (
    Extension,
    ExtensionAPI,
    ExtensionContributions,
    ExtensionDescriptor,
    ExtensionKernel,
    ExtensionPermissionError,
    create_extension_kernel,
    discover_extensions,
)
from ._filter import ToolFilter, filter_tools
from ._ledger import InMemoryRunLedger, RunLedger, ToolCallRecord
from ._messages import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    RunResult,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from ._middleware import MiddlewareRegistry
from ._permission import (
    PermissionDecision,
    PermissionPolicy,
    PermissionRequest,
    create_static_permission_policy,
)
from ._redact import Redactor, SecretRedactor
from ._registry import ToolRegistry, UnknownToolError, create_tool_registry
from ._render import render_tool_result
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
from .events import (
    AgentEvent,
    BlockedReason,
    EventSink,
    ToolExecutionBlocked,
    ToolExecutionError,
    ToolExecutionFinished,
    ToolExecutionProgress,
    ToolExecutionStarted,
)

__all__ = [
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Agent",
    "AgentEvent",
    "AssistantMessage",
    "AudioContent",
    "BlockedReason",
    "Content",
    "ErrorInfo",
    "EventSink",
    "ExecutionAction",
    "ExecutionDecision",
    "ExecutionDeniedError",
    "ExecutionPolicy",
    "Extension",
    "ExtensionAPI",
    "ExtensionContributions",
    "ExtensionDescriptor",
    "ExtensionKernel",
    "ExtensionPermissionError",
    "ImageContent",
    "InMemoryRunLedger",
    "JsonObject",
    "JsonValue",
    "LoopOptions",
    "Message",
    "MiddlewareRegistry",
    "ModelRequest",
    "ModelResponse",
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "Provider",
    "Redactor",
    "ResourceContent",
    "ResourceLinkContent",
    "RunLedger",
    "RunLimits",
    "RunOptions",
    "RunResult",
    "SecretRedactor",
    "TextContent",
    "ToolArgumentValidationError",
    "ToolArgumentValidationResult",
    "ToolArgumentValidator",
    "ToolCall",
    "ToolCallRecord",
    "ToolDefinition",
    "ToolExecutionBlocked",
    "ToolExecutionContext",
    "ToolExecutionError",
    "ToolExecutionFinished",
    "ToolExecutionProgress",
    "ToolExecutionStarted",
    "ToolFilter",
    "ToolHandler",
    "ToolMessage",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "ToolValidator",
    "UnknownToolError",
    "UserMessage",
    "assert_execution_allowed",
    "create_agent",
    "create_extension_kernel",
    "create_static_permission_policy",
    "create_tool_parameter_validator",
    "create_tool_registry",
    "discover_extensions",
    "dispatch_tool_call",
    "dispatch_tool_calls_in_order",
    "filter_tools",
    "render_tool_result",
    "resolve_tool_concurrency",
]
