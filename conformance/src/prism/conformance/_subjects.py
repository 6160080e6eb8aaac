"""The pluggable parts a conformance run exercises, and the first-party defaults."""

from __future__ import annotations

import importlib
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
from prism.core.agent import Agent
from prism.core.extensions import ExtensionKernel

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
    dispatch_batch: Callable[..., Awaitable[tuple[ToolResult, ...]]] = dispatch_tool_calls_in_order
    """Same signature as ``prism.core.dispatch_tool_calls_in_order``."""
    permission_factory: Callable[[Collection[str]], PermissionPolicy] = _deny_tools_policy
    """Builds a permission policy that denies exactly the named tools."""
    redactor_factory: Callable[[Iterable[str]], Redactor] = _secret_redactor
    """Builds a redactor hiding the given secrets."""
    agent_factory: Callable[..., Any] = Agent
    """Like ``prism.core.agent.Agent(provider=..., model=..., tools=..., **options)``."""
    extension_kernel_factory: Callable[..., Any] = ExtensionKernel
    """Like ``prism.core.extensions.ExtensionKernel(*, permission=None)``."""
    json_schema_validator_factory: Callable[..., Any] | None = None
    """Like ``prism.jsonschema.JsonSchemaArgumentValidator(*, options=None)``."""
    coding_tools_factory: Callable[..., tuple[ToolDefinition, ...]] | None = None
    """Like ``prism.coding_tools.create_coding_tools(cwd, **options)``."""
    execution_policy_factory: Callable[..., Any] | None = None
    """Like ``prism.coding_security.CodingApprovalPolicy(**options)``."""
    sandbox_factory: Callable[..., Any] | None = None
    """Like ``prism.coding_security.BubblewrapSandbox(**options)``."""
    sandbox_operations_factory: Callable[[Any], Any] | None = None
    """Like ``prism.coding_security.create_sandbox_bash_operations(sandbox)``."""
    mcp_connect: Callable[..., AbstractAsyncContextManager[Any]] | None = None
    """Like ``prism.mcp.connect_mcp_tools(server_id=..., transport=..., options=...)``."""
    mcp_bridge_options: Callable[..., Any] | None = None
    """Like ``prism.mcp.McpBridgeOptions(**bounds)``: what ``mcp_connect`` takes as ``options``."""
    mcp_stdio_transport: Callable[..., Any] | None = None
    """Like ``prism.mcp.StdioTransport(command, args=(), env=None, cwd=None)``."""
    durable_agent_factory: Callable[..., Any] | None = None
    """Like ``prism.dbos.DurableAgent(**options)``; module-level (child processes load it)."""


_ADAPTER_SUBJECTS: dict[str, tuple[tuple[str, str], ...]] = {
    "prism.jsonschema": (("json_schema_validator_factory", "JsonSchemaArgumentValidator"),),
    "prism.coding_tools": (("coding_tools_factory", "create_coding_tools"),),
    "prism.coding_security": (
        ("execution_policy_factory", "CodingApprovalPolicy"),
        ("sandbox_factory", "BubblewrapSandbox"),
        ("sandbox_operations_factory", "create_sandbox_bash_operations"),
    ),
    "prism.dbos": (("durable_agent_factory", "DurableAgent"),),
    "prism.mcp": (
        ("mcp_connect", "connect_mcp_tools"),
        ("mcp_bridge_options", "McpBridgeOptions"),
        ("mcp_stdio_transport", "StdioTransport"),
    ),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def default_subjects() -> ConformanceSubjects:
    """Subjects built from the first-party packages that are installed.

    A package that is absent, fails to import, or lacks a constructor leaves that field
    ``None``, so its rows report ``skipped`` (never ``passed``).
    """
    fields: dict[str, Any] = {}
    for module_name, wanted in _ADAPTER_SUBJECTS.items():
        if not _installed(module_name):
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for field_name, attribute in wanted:
            value = getattr(module, attribute, None)
            if value is not None:
                fields[field_name] = value
    return ConformanceSubjects(**fields)
