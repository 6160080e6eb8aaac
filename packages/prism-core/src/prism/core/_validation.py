"""The validator seam: how a tool's arguments are checked before it runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, final, runtime_checkable

from ._backend import maybe_await
from ._types import ErrorInfo, JsonObject, ToolDefinition, ToolExecutionContext
from .options import check_choice

__all__ = [
    "ToolArgumentValidationIssue",
    "ToolArgumentValidationResult",
    "ToolArgumentValidator",
    "ToolValidator",
    "create_tool_parameter_validator",
]

ToolValidator: TypeAlias = Callable[
    [ToolDefinition, JsonObject, ToolExecutionContext],
    "None | str | ErrorInfo | Awaitable[None | str | ErrorInfo]",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolArgumentValidationIssue:
    """One problem: ``path`` is a JSON Pointer into the arguments (or ``None``)."""

    path: str | None
    message: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolArgumentValidationResult:
    """``ok`` with no errors, or not ok with at least one error."""

    ok: bool
    errors: tuple[ToolArgumentValidationIssue, ...] = ()


@runtime_checkable
class ToolArgumentValidator(Protocol):
    """Validates a value against a JSON Schema."""

    def validate(self, schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        """Check ``value`` against ``schema``."""
        ...


def render_validation_errors(errors: tuple[ToolArgumentValidationIssue, ...]) -> str:
    """``<path>: <message>`` joined by ``; `` (the path is omitted when unknown or the root)."""
    parts = [f"{e.path}: {e.message}" if e.path else e.message for e in errors]
    return "; ".join(parts) or "arguments are invalid"


def missing_schema_blocked(tool: ToolDefinition) -> ErrorInfo:
    """The verdict on a tool without ``parameters`` when such tools are rejected."""
    return ErrorInfo(
        code="validation_failed",
        message=f"Tool {tool.name} has no parameter schema; calls are rejected",
    )


def validation_verdict(result: ToolArgumentValidationResult) -> ErrorInfo | None:
    """``None`` for a passing result, else the ``validation_failed`` error naming every path."""
    if result.ok:
        return None
    return ErrorInfo(
        code="validation_failed",
        message=render_validation_errors(result.errors),
        details={"errors": [{"path": e.path, "message": e.message} for e in result.errors]},
    )


def create_tool_parameter_validator(
    validator: ToolArgumentValidator,
    *,
    missing_schema: Literal["allow", "reject"] = "allow",
) -> ToolValidator:
    """Adapt a ``ToolArgumentValidator`` to the dispatch ``ToolValidator`` seam.

    Tools without ``parameters`` pass with ``"allow"`` and are blocked with ``"reject"``.
    """
    where = "create_tool_parameter_validator.missing_schema"
    check_choice(where, missing_schema, ("allow", "reject"))

    async def validate(
        tool: ToolDefinition, arguments: JsonObject, context: ToolExecutionContext
    ) -> ErrorInfo | None:
        schema = tool.parameters
        if schema is None:
            return None if missing_schema == "allow" else missing_schema_blocked(tool)
        return validation_verdict(await maybe_await(validator.validate(schema, arguments)))

    return validate
