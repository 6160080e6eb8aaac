"""Prism core: contracts, the dispatch pipeline, policies and a minimal agent loop.

Stdlib only; every async function runs unchanged on asyncio and trio.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # avoids importing typing: `import prism.core` stays light

if TYPE_CHECKING:
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
    from ._function_tools import to_strict_json_schema, tool
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
    from ._parse import parse_tool_call
    from ._permission import (
        PermissionDecision,
        PermissionPolicy,
        PermissionRequest,
        create_static_permission_policy,
    )
    from ._pipeline import CallScope, ExternalOutcome, ToolPipeline
    from ._redact import REDACTED, Redactor, SecretRedactor
    from ._registry import ToolLookup, ToolRegistry, UnknownToolError, create_tool_registry
    from ._render import render_tool_result
    from ._types import (
        Audience,
        AudioContent,
        Content,
        ContentAnnotations,
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
    "REDACTED",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Agent",
    "AgentEvent",
    "AssistantMessage",
    "Audience",
    "AudioContent",
    "BlockedReason",
    "CallScope",
    "Content",
    "ContentAnnotations",
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
    "ExternalOutcome",
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
    "ToolLookup",
    "ToolMessage",
    "ToolPipeline",
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
    "parse_tool_call",
    "render_tool_result",
    "resolve_tool_concurrency",
    "to_strict_json_schema",
    "tool",
]

# Public names load on first use (PEP 562): `import prism.core` stays as cheap as `import json`,
# and a host that only dispatches never pays for the agent loop or extensions.
_LAZY: dict[str, str] = {
    "REDACTED": "._redact",
    "AbortController": "._abort",
    "AbortError": "._abort",
    "AbortSignal": "._abort",
    "Agent": "._agent",
    "AgentEvent": ".events",
    "AssistantMessage": "._messages",
    "Audience": "._types",
    "AudioContent": "._types",
    "BlockedReason": ".events",
    "Content": "._types",
    "ContentAnnotations": "._types",
    "ErrorInfo": "._types",
    "EventSink": ".events",
    "ExecutionAction": "._execution",
    "ExecutionDecision": "._execution",
    "ExecutionDeniedError": "._execution",
    "ExecutionPolicy": "._execution",
    "Extension": "._extensions",
    "ExtensionAPI": "._extensions",
    "ExtensionContributions": "._extensions",
    "ExtensionDescriptor": "._extensions",
    "ExtensionKernel": "._extensions",
    "ExtensionPermissionError": "._extensions",
    "ImageContent": "._types",
    "InMemoryRunLedger": "._ledger",
    "JsonObject": "._types",
    "JsonValue": "._types",
    "LoopOptions": "._batch",
    "Message": "._messages",
    "MiddlewareRegistry": "._middleware",
    "ModelRequest": "._messages",
    "ModelResponse": "._messages",
    "PermissionDecision": "._permission",
    "PermissionPolicy": "._permission",
    "PermissionRequest": "._permission",
    "Provider": "._messages",
    "Redactor": "._redact",
    "ResourceContent": "._types",
    "ResourceLinkContent": "._types",
    "RunLedger": "._ledger",
    "RunLimits": "._agent",
    "RunOptions": "._agent",
    "RunResult": "._messages",
    "SecretRedactor": "._redact",
    "TextContent": "._types",
    "ToolArgumentValidationError": "._validation",
    "ToolArgumentValidationResult": "._validation",
    "ToolArgumentValidator": "._validation",
    "ToolCall": "._types",
    "ToolCallRecord": "._ledger",
    "ToolDefinition": "._types",
    "ToolExecutionBlocked": ".events",
    "ToolExecutionContext": "._types",
    "ToolExecutionError": ".events",
    "ToolExecutionFinished": ".events",
    "ToolExecutionProgress": ".events",
    "ToolExecutionStarted": ".events",
    "ToolFilter": "._filter",
    "ToolHandler": "._types",
    "ToolMessage": "._messages",
    "ToolLookup": "._registry",
    "ToolPipeline": "._pipeline",
    "ExternalOutcome": "._pipeline",
    "CallScope": "._pipeline",
    "parse_tool_call": "._parse",
    "ToolRegistry": "._registry",
    "ToolResult": "._types",
    "ToolSpec": "._messages",
    "ToolValidator": "._validation",
    "UnknownToolError": "._registry",
    "UserMessage": "._messages",
    "assert_execution_allowed": "._execution",
    "create_agent": "._agent",
    "create_extension_kernel": "._extensions",
    "create_static_permission_policy": "._permission",
    "create_tool_parameter_validator": "._validation",
    "create_tool_registry": "._registry",
    "discover_extensions": "._extensions",
    "dispatch_tool_call": "._dispatch",
    "dispatch_tool_calls_in_order": "._batch",
    "filter_tools": "._filter",
    "render_tool_result": "._render",
    "resolve_tool_concurrency": "._batch",
    "to_strict_json_schema": "._function_tools",
    "tool": "._function_tools",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'prism.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
