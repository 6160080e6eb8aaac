"""The pluggable parts a conformance run exercises, and the first-party defaults."""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable, Collection, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from prism.core import (
    PermissionPolicy,
    Redactor,
    SecretRedactor,
    ToolDefinition,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)

__all__ = ["ConformanceSubjects", "default_subjects"]


def _deny_tools_policy(names: Collection[str]) -> PermissionPolicy:
    return create_static_permission_policy(deny=[f"tool:{name}:execute" for name in names])


def _secret_redactor(secrets: Iterable[str]) -> Redactor:
    return SecretRedactor(secrets)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConformanceSubjects:
    """What the rows run against. Override a field to test your own implementation.

    Fields that are ``None`` make the rows that need them report ``skipped``.
    Factories mirror the first-party constructors' keyword arguments.
    """

    dispatch: Callable[..., Awaitable[ToolResult]] = dispatch_tool_call
    """Same signature as ``prism.core.dispatch_tool_call``."""
    dispatch_batch: Callable[..., Awaitable[tuple[ToolResult, ...]]] = (
        dispatch_tool_calls_in_order
    )
    """Same signature as ``prism.core.dispatch_tool_calls_in_order``."""
    permission_factory: Callable[[Collection[str]], PermissionPolicy] = _deny_tools_policy
    """Builds a permission policy that denies exactly the named tools."""
    redactor_factory: Callable[[Iterable[str]], Redactor] = _secret_redactor
    """Builds a redactor hiding the given secrets."""
    json_schema_validator_factory: Callable[..., Any] | None = None
    """Like ``prism.jsonschema.JsonSchemaArgumentValidator(**options)``: ``validate`` + ``cache_info``."""
    coding_tools_factory: Callable[..., tuple[ToolDefinition, ...]] | None = None
    """Like ``prism.coding_tools.create_coding_tools(cwd, **options)``."""
    execution_policy_factory: Callable[..., Any] | None = None
    """Like ``prism.coding_security.create_coding_approval_policy(**options)``."""
    sandbox_factory: Callable[..., Any] | None = None
    """Like ``prism.coding_security.BubblewrapSandbox(**options)``."""
    sandbox_operations_factory: Callable[[Any], Any] | None = None
    """Like ``prism.coding_security.create_sandbox_bash_operations(sandbox)``."""
    mcp_connect: Callable[..., AbstractAsyncContextManager[Any]] | None = None
    """Like ``prism.mcp.connect_mcp_tools(server_id=..., transport=..., **options)``."""
    mcp_stdio_transport: Callable[..., Any] | None = None
    """Like ``prism.mcp.StdioTransport(command, args=(), env=None, cwd=None)``."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def default_subjects() -> ConformanceSubjects:
    """Subjects built from the first-party packages that are installed."""
    fields: dict[str, Any] = {}
    if _installed("prism.jsonschema"):
        from prism import jsonschema

        fields["json_schema_validator_factory"] = jsonschema.JsonSchemaArgumentValidator
    if _installed("prism.coding_tools"):
        from prism import coding_tools

        fields["coding_tools_factory"] = coding_tools.create_coding_tools
    if _installed("prism.coding_security"):
        from prism import coding_security

        fields["execution_policy_factory"] = coding_security.create_coding_approval_policy
        fields["sandbox_factory"] = coding_security.BubblewrapSandbox
        fields["sandbox_operations_factory"] = coding_security.create_sandbox_bash_operations
    if _installed("prism.mcp"):
        from prism import mcp

        fields["mcp_connect"] = mcp.connect_mcp_tools
        fields["mcp_stdio_transport"] = mcp.StdioTransport
    return ConformanceSubjects(**fields)
