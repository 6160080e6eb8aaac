"""Prism core: the tool contracts and the one dispatch pipeline every call goes through.

Stdlib only; every async function runs unchanged on asyncio and trio. The agent loop, function
tools, extensions and events live in the public submodules ``prism.core.agent``,
``prism.core.functions``, ``prism.core.extensions`` and ``prism.core.events``.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # avoids importing typing: `import prism.core` stays light

if TYPE_CHECKING:
    from ._abort import AbortController, AbortError, AbortSignal
    from ._batch import dispatch_tool_calls_in_order
    from ._dispatch import dispatch_tool_call
    from ._dispatch_options import DispatchSettings
    from ._errors import PrismError
    from ._execution import (
        ExecutionAction,
        ExecutionDecision,
        ExecutionDeniedError,
        ExecutionPolicy,
        assert_execution_allowed,
    )
    from ._filter import ToolFilter, filter_tools
    from ._gates import ToolGates
    from ._ledger import InMemoryRunLedger, RunLedger, ToolCallRecord
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
    from ._registry import ToolLookup, ToolRegistry, UnknownToolError
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
        ToolArgumentValidationIssue,
        ToolArgumentValidationResult,
        ToolArgumentValidator,
        ToolValidator,
        create_tool_parameter_validator,
    )

__all__ = [
    "REDACTED",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Audience",
    "AudioContent",
    "CallScope",
    "Content",
    "ContentAnnotations",
    "DispatchSettings",
    "ErrorInfo",
    "ExecutionAction",
    "ExecutionDecision",
    "ExecutionDeniedError",
    "ExecutionPolicy",
    "ExternalOutcome",
    "ImageContent",
    "InMemoryRunLedger",
    "JsonObject",
    "JsonValue",
    "MiddlewareRegistry",
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "PrismError",
    "Redactor",
    "ResourceContent",
    "ResourceLinkContent",
    "RunLedger",
    "SecretRedactor",
    "TextContent",
    "ToolArgumentValidationIssue",
    "ToolArgumentValidationResult",
    "ToolArgumentValidator",
    "ToolCall",
    "ToolCallRecord",
    "ToolDefinition",
    "ToolExecutionContext",
    "ToolFilter",
    "ToolGates",
    "ToolHandler",
    "ToolLookup",
    "ToolPipeline",
    "ToolRegistry",
    "ToolResult",
    "ToolValidator",
    "UnknownToolError",
    "assert_execution_allowed",
    "create_static_permission_policy",
    "create_tool_parameter_validator",
    "dispatch_tool_call",
    "dispatch_tool_calls_in_order",
    "filter_tools",
    "parse_tool_call",
    "render_tool_result",
]

# Public names load on first use (PEP 562): `import prism.core` stays as cheap as `import json`.
# This table, `__all__` and the imports above must agree (tests/test_public_surface.py).
_LAZY: dict[str, str] = {
    "REDACTED": "._redact",
    "AbortController": "._abort",
    "AbortError": "._abort",
    "AbortSignal": "._abort",
    "Audience": "._types",
    "AudioContent": "._types",
    "CallScope": "._pipeline",
    "Content": "._types",
    "ContentAnnotations": "._types",
    "DispatchSettings": "._dispatch_options",
    "ErrorInfo": "._types",
    "ExecutionAction": "._execution",
    "ExecutionDecision": "._execution",
    "ExecutionDeniedError": "._execution",
    "ExecutionPolicy": "._execution",
    "ExternalOutcome": "._pipeline",
    "ImageContent": "._types",
    "InMemoryRunLedger": "._ledger",
    "JsonObject": "._types",
    "JsonValue": "._types",
    "MiddlewareRegistry": "._middleware",
    "PermissionDecision": "._permission",
    "PermissionPolicy": "._permission",
    "PermissionRequest": "._permission",
    "PrismError": "._errors",
    "Redactor": "._redact",
    "ResourceContent": "._types",
    "ResourceLinkContent": "._types",
    "RunLedger": "._ledger",
    "SecretRedactor": "._redact",
    "TextContent": "._types",
    "ToolArgumentValidationIssue": "._validation",
    "ToolArgumentValidationResult": "._validation",
    "ToolArgumentValidator": "._validation",
    "ToolCall": "._types",
    "ToolCallRecord": "._ledger",
    "ToolDefinition": "._types",
    "ToolExecutionContext": "._types",
    "ToolFilter": "._filter",
    "ToolGates": "._gates",
    "ToolHandler": "._types",
    "ToolLookup": "._registry",
    "ToolPipeline": "._pipeline",
    "ToolRegistry": "._registry",
    "ToolResult": "._types",
    "ToolValidator": "._validation",
    "UnknownToolError": "._registry",
    "assert_execution_allowed": "._execution",
    "create_static_permission_policy": "._permission",
    "create_tool_parameter_validator": "._validation",
    "dispatch_tool_call": "._dispatch",
    "dispatch_tool_calls_in_order": "._batch",
    "filter_tools": "._filter",
    "parse_tool_call": "._parse",
    "render_tool_result": "._render",
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
