"""What every tool shares: expected-failure results, the policy gate, argument and path checks."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

import anyio
import anyio.to_thread

from prism.core import (
    Content,
    ErrorInfo,
    ExecutionAction,
    ExecutionDeniedError,
    ExecutionPolicy,
    JsonObject,
    JsonValue,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
    assert_execution_allowed,
)
from prism.core.options import check_seconds

__all__ = [
    "ToolError",
    "allowed_action",
    "check_aborted",
    "guarded_tool",
    "in_worker",
    "ok_result",
    "optional_int",
    "optional_seconds",
    "require_keys",
    "require_str",
    "tool_root",
]

T = TypeVar("T")

Runner = Callable[[JsonObject, ToolExecutionContext], Awaitable[ToolResult]]


class ToolError(Exception):
    """An expected failure: becomes an error ``ToolResult`` (never reaches dispatch)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        content: tuple[Content, ...] = (),
        metadata: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.content = content
        self.metadata = metadata or {}

    def result(self, name: str, context: ToolExecutionContext) -> ToolResult:
        """The error result the model sees."""
        return ToolResult(
            tool_call_id=context.tool_call_id,
            name=name,
            content=self.content,
            error=ErrorInfo(code=self.code, message=self.message),
            metadata=MappingProxyType(dict(self.metadata)),
        )


def ok_result(
    name: str,
    context: ToolExecutionContext,
    content: tuple[Content, ...] | str,
    metadata: Mapping[str, object],
) -> ToolResult:
    """A successful result with frozen metadata."""
    blocks = (TextContent(text=content),) if isinstance(content, str) else content
    return ToolResult(
        tool_call_id=context.tool_call_id,
        name=name,
        content=blocks,
        metadata=MappingProxyType(dict(metadata)),
    )


def _guarded(name: str, run: Runner) -> Runner:
    """Wrap a tool body so that no ``Exception`` reaches dispatch (cancellation still does)."""

    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        try:
            return await run(arguments, context)
        except ToolError as exc:
            return exc.result(name, context)
        except Exception as exc:
            return ToolResult(
                tool_call_id=context.tool_call_id,
                name=name,
                error=ErrorInfo(
                    code="tool_failed",
                    name=type(exc).__name__,
                    message=f"{name} failed unexpectedly: {type(exc).__name__}: {exc}",
                ),
            )

    execute.__name__ = f"{name}_execute"
    return execute


async def allowed_action(
    policy: ExecutionPolicy | None, action: ExecutionAction, context: ToolExecutionContext
) -> ExecutionAction:
    """Ask the policy (with the call's ids and abort signal); a denial raises ``ToolError``."""
    action = dataclasses.replace(
        action,
        metadata={
            **action.metadata,
            "session_id": context.session_id,
            "run_id": context.run_id,
        },
    )
    try:
        return await assert_execution_allowed(policy, action, signal=context.signal)
    except ExecutionDeniedError as exc:
        if context.signal.aborted:
            raise ToolError("aborted", f"Aborted before {action.kind} ran: {exc.reason}") from None
        raise ToolError("execution_denied", exc.reason) from None


def check_aborted(context: ToolExecutionContext, what: str) -> None:
    """Raise an ``aborted`` ``ToolError`` if the call was aborted."""
    if context.signal.aborted:
        raise ToolError("aborted", f"Aborted before {what}; nothing was changed")


def guarded_tool(
    name: str,
    run: Runner,
    *,
    description: str,
    properties: dict[str, JsonValue],
    required: tuple[str, ...],
    read_only: bool = False,
    exclusive: bool = False,
) -> ToolDefinition:
    """A tool whose body never lets an ``Exception`` reach dispatch, taking an object of
    exactly ``properties``; never idempotent (a write or a command is not safe to repeat)."""
    return ToolDefinition(
        name=name,
        execute=_guarded(name, run),
        description=description,
        parameters={
            "type": "object",
            "properties": properties,
            "required": list(required),
            "additionalProperties": False,
        },
        exclusive=exclusive,
        read_only=read_only,
    )


def require_keys(
    arguments: JsonObject, allowed: tuple[str, ...], required: tuple[str, ...]
) -> None:
    """Refuse unknown and missing argument names, naming them."""
    unknown = sorted(set(arguments) - set(allowed))
    if unknown:
        raise ToolError(
            "invalid_arguments",
            f"Unknown argument(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}",
        )
    missing = [key for key in required if key not in arguments]
    if missing:
        raise ToolError("invalid_arguments", f"Missing required argument(s): {', '.join(missing)}")


def require_str(arguments: JsonObject, key: str, *, non_empty: bool = True) -> str:
    """``arguments[key]`` as a string."""
    value = arguments.get(key)
    if not isinstance(value, str):
        raise ToolError("invalid_arguments", f"{key} must be a string, got {_kind(value)}")
    if non_empty and not value:
        raise ToolError("invalid_arguments", f"{key} must not be empty")
    return value


def optional_int(arguments: JsonObject, key: str) -> int | None:
    """``arguments[key]`` as an int >= 1, or ``None`` when absent."""
    value = arguments.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError("invalid_arguments", f"{key} must be an integer >= 1, got {value!r}")
    return value


def optional_seconds(arguments: JsonObject, key: str, cap: float) -> float | None:
    """``arguments[key]`` as seconds in ``(0, cap]``, or ``None`` when absent."""
    value = arguments.get(key)
    if value is None:
        return None
    try:
        return check_seconds(key, value, cap=cap)
    except (TypeError, ValueError) as exc:
        raise ToolError("invalid_arguments", str(exc)) from None


def tool_root(cwd: str | os.PathLike[str], options: object, expected: type) -> str:
    """The absolute directory a tool is bound to, once ``options`` is known to be ``expected``."""
    if not isinstance(options, expected):
        where = f"create_{expected.__name__.removesuffix('Options').lower()}_tool.options"
        raise TypeError(f"{where} must be a {expected.__name__}, got {options!r:.200}")
    return os.path.abspath(os.fspath(cwd))


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


async def in_worker(
    fn: Callable[[Callable[[], bool]], T],
    context: ToolExecutionContext,
    *,
    abandon_on_cancel: bool,
) -> T:
    """Run blocking ``fn(should_stop)`` in a worker thread; ``should_stop`` turns true on abort
    (and, when the thread may be abandoned, on cancellation)."""
    stop = threading.Event()

    def should_stop() -> bool:
        return stop.is_set() or context.signal.aborted

    try:
        return await anyio.to_thread.run_sync(fn, should_stop, abandon_on_cancel=abandon_on_cancel)
    finally:
        stop.set()
