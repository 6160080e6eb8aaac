"""``dispatch_tool_call``: the one pipeline every tool call goes through, in a frozen order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Unpack

from . import _backend
from ._abort import NEVER_ABORTED
from ._arguments import canonical_json_object
from ._dispatch_options import DispatchOptions, DispatchSettings
from ._fastinit import positional_factory
from ._filter import tool_allowed
from ._handler import executed_outcome
from ._hostile import exception_text, read_call, safe_call
from ._middleware import MiddlewareRegistry
from ._outcomes import (
    aborted_outcome,
    blocked_outcome,
    middleware_failed_outcome,
    unprocessable_outcome,
)
from ._permission import PermissionDecision, PermissionPolicy, PermissionRequest, ask_permission
from ._reporting import CallReporter
from ._types import (
    EMPTY_MAPPING,
    ErrorInfo,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
    _no_progress,
)
from ._validation import ToolValidator
from .events import BlockedReason, ToolExecutionProgress

__all__ = ["dispatch_tool_call", "run_call_middleware", "run_dispatch"]

_make_context = positional_factory(
    ToolExecutionContext, ("session_id", "run_id", "tool_call_id", "signal", "metadata", "progress")
)


async def dispatch_tool_call(call: ToolCall, **settings: Unpack[DispatchSettings]) -> ToolResult:
    """Run one tool call through the pipeline and return its result; never raises for tool
    problems (only for host cancellation or bad settings given to this function itself).

    Order: ``tool_call`` middleware → lookup, filter, argument check → permission →
    validator → execute → ``tool_result`` middleware → redaction, events, ledger.
    ``settings`` are the gates (see ``DispatchSettings``); only ``registry`` is required.
    """
    opts = DispatchOptions(settings)
    context = opts.context
    return await run_dispatch(call, opts, opts.reporter(context), context)


async def run_call_middleware(call: ToolCall, middleware: MiddlewareRegistry | None) -> ToolCall:
    """Step 1 alone: the ``tool_call`` hooks (raises what a middleware raises)."""
    if middleware is None or not middleware.has("tool_call"):
        return call
    return await middleware.run("tool_call", call, ToolCall)


async def run_dispatch(
    call: ToolCall,
    opts: DispatchOptions,
    report: CallReporter,
    context: ToolExecutionContext | None,
    *,
    call_middleware_done: bool = False,
) -> ToolResult:
    """The pipeline for one call with a caller-owned reporter (batch dispatch shares it).

    Never raises for anything inside ``call``: whatever its contents raise while being read
    blocks the call with ``invalid_arguments``.
    """
    if type(call) is not ToolCall and not isinstance(call, ToolCall):
        raise TypeError(f"dispatch expects a ToolCall, got {type(call).__name__}")
    try:
        call = read_call(call)
        return await _pipeline(call, opts, report, context, call_middleware_done)
    except Exception as exc:
        return await unprocessable_outcome(report, call, exc)


async def _pipeline(
    call: ToolCall,
    opts: DispatchOptions,
    report: CallReporter,
    context: ToolExecutionContext | None,
    call_middleware_done: bool,
) -> ToolResult:
    middleware = opts.middleware
    if not call_middleware_done and middleware is not None and middleware.has("tool_call"):
        try:
            call = await middleware.run("tool_call", call, ToolCall)
        except Exception as exc:
            return await middleware_failed_outcome(report, call, exc)
        call = read_call(call)
    checked = _precheck(call, opts)
    if len(checked) == 2:  # refused: (reason, message)
        if checked[0] == "invalid_arguments" or type(call.name) is not str:
            call = safe_call(call)  # arguments that are not JSON are never reported onward
        return await blocked_outcome(report, call, *checked)
    tool, call = checked[1], checked[2]
    if opts.permission is not None:
        denial = await _permission_denial(call, opts.permission, report, context)
        if denial is not None:
            return await blocked_outcome(report, call, "permission_denied", denial)
    ctx = _call_context(context, call, report)
    if opts.validator is not None:
        why = await _run_validator(opts.validator, tool, call, ctx)
        if why is not None:
            return await blocked_outcome(
                report, call, "validation_failed", why.message, why.details
            )
    if ctx.signal.aborted:
        return await aborted_outcome(report, call, ctx.signal.reason)
    return await executed_outcome(report, call, tool, ctx, middleware)


def _kind(value: object) -> str:
    return "a string" if type(value) is str else f"a {type(value).__name__}"


def _precheck(
    call: ToolCall, opts: DispatchOptions
) -> tuple[BlockedReason, str] | tuple[None, ToolDefinition, ToolCall]:
    """Step 2: lookup, filter and the JSON-object check (all synchronous).

    Returns ``(None, tool, call)`` with the call's arguments decoded once into canonical JSON
    (what the validator checks and the handler receives), or why the call is refused as
    ``(reason, message)``.
    """
    if type(call.id) is not str or type(call.name) is not str:
        kinds = f"got {_kind(call.id)} and {_kind(call.name)}"
        return (
            "invalid_arguments",
            f"Tool call is malformed: id and name must be strings, {kinds}",
        )
    tool = opts.registry.get(call.name)
    if tool is None:
        return ("unknown_tool", f"Unknown tool: {call.name}")
    tool_filter = opts.tool_filter
    if tool_filter is not None and not tool_allowed(call.name, tool_filter):
        return ("tool_denied", f"Tool denied: {call.name}")
    if call.arguments_error is not None:
        why = call.arguments_error.message or "the arguments could not be parsed"
        return ("invalid_arguments", f"Tool arguments must be a JSON object: {why}")
    arguments, refused = canonical_json_object(call.arguments, opts.max_argument_bytes)
    if arguments is None:
        return ("invalid_arguments", f"Tool arguments must be a JSON object: {refused}")
    return (None, tool, _with_arguments(call, arguments))


_make_call = positional_factory(ToolCall, ("id", "name", "arguments", "arguments_error"))


def _with_arguments(call: ToolCall, arguments: dict[str, object]) -> ToolCall:
    return _make_call(call.id, call.name, arguments, None)


async def _permission_denial(
    call: ToolCall,
    permission: PermissionPolicy,
    report: CallReporter,
    context: ToolExecutionContext | None,
) -> str | None:
    """Step 3: ``tool:<name>:execute``; returns the denial reason or ``None``."""
    metadata: dict[str, object] = {
        "session_id": report.session_id,
        "run_id": report.run_id,
        "tool_call_id": call.id,
        "arguments": call.arguments,
    }
    if context is not None and context.metadata:
        metadata.update(context.metadata)
    request = PermissionRequest(kind="tool", target=call.name, action="execute", metadata=metadata)
    decision = ask_permission(permission, request)
    if not isinstance(decision, PermissionDecision):
        decision = await decision
    if decision.allowed:
        return None
    return decision.reason or f"Permission denied: {request.key}"


class _ProgressReporter:
    """``context.progress`` for one call: emits a progress event, then calls the outer one."""

    __slots__ = ("call", "outer", "report")

    def __init__(
        self,
        report: CallReporter,
        call: ToolCall,
        outer: Callable[[float | None, str | None], Awaitable[None]],
    ) -> None:
        self.report = report
        self.call = call
        self.outer = outer

    async def __call__(self, value: float | None, message: str | None) -> None:
        report = self.report
        await report.event(
            ToolExecutionProgress(
                session_id=report.session_id, run_id=report.run_id, call=self.call,
                progress=value, message=message,
            )
        )  # fmt: skip
        await self.outer(value, message)


def _call_context(
    context: ToolExecutionContext | None, call: ToolCall, report: CallReporter
) -> ToolExecutionContext:
    """The handler's context: the caller's, stamped with this call's id and progress events."""
    progress: Callable[[float | None, str | None], Awaitable[None]]
    if context is None:
        progress = (
            _no_progress if report.emit is None else _ProgressReporter(report, call, _no_progress)
        )
        return _make_context("", "", call.id, NEVER_ABORTED, EMPTY_MAPPING, progress)
    if report.emit is None:
        if context.tool_call_id == call.id:
            return context
        progress = context.progress
    else:
        progress = _ProgressReporter(report, call, context.progress)
    return _make_context(
        context.session_id, context.run_id, call.id, context.signal, context.metadata, progress
    )


async def _run_validator(
    validate: ToolValidator, tool: ToolDefinition, call: ToolCall, ctx: ToolExecutionContext
) -> ErrorInfo | None:
    """Step 4: ``None`` passes; any ``str`` (even empty) or ``ErrorInfo`` blocks.

    Returns what to block with: the message, and the validator's ``details`` if it gave any.
    """
    try:
        outcome = await _backend.maybe_await(validate(tool, call.arguments, ctx))
    except Exception as exc:
        text = exception_text(exc)
        return ErrorInfo(message=f"Argument validator failed: {type(exc).__name__}: {text}")
    if outcome is None:
        return None
    fallback = f"Arguments for {call.name} failed validation"
    if isinstance(outcome, ErrorInfo):
        return ErrorInfo(message=outcome.message or fallback, details=outcome.details)
    if isinstance(outcome, str):
        return ErrorInfo(message=outcome or fallback)
    return ErrorInfo(
        message=f"Argument validator returned {type(outcome).__name__}; treated as a failure"
    )
