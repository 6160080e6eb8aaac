"""``dispatch_tool_call``: the one pipeline every tool call goes through, in a frozen order."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence

from . import _backend
from ._abort import NEVER_ABORTED, AbortError
from ._arguments import MAX_ARGUMENT_BYTES_CAP, check_json_object
from ._fastinit import positional_factory
from ._filter import ToolFilter, tool_allowed
from ._hostile import exception_text, safe_call
from ._ledger import RunLedger
from ._middleware import MiddlewareRegistry
from ._permission import PermissionDecision, PermissionPolicy, PermissionRequest, ask_permission
from ._redact import Redactor
from ._registry import ToolLookup
from ._reporting import CallReporter
from ._types import (
    CONTENT_TYPES,
    EMPTY_MAPPING,
    ErrorInfo,
    JsonObject,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
    _no_progress,
)
from ._validation import ToolValidator
from .events import (
    BlockedReason,
    EventSink,
    ToolExecutionBlocked,
    ToolExecutionFailed,
    ToolExecutionFinished,
    ToolExecutionProgress,
    ToolExecutionStarted,
)
from .options import check_count

__all__ = [
    "DispatchOptions",
    "block",
    "block_aborted",
    "blocked_result",
    "dispatch_tool_call",
    "exception_text",
    "fail",
    "run_call_middleware",
    "run_dispatch",
    "safe_call",
    "unprocessable",
]


def blocked_result(
    call: ToolCall, reason: BlockedReason, message: str, details: JsonObject | None = None
) -> ToolResult:
    """The result a blocked call gets: an error with ``code=reason``."""
    error = ErrorInfo(code=reason, message=message, details=details)
    return ToolResult(tool_call_id=call.id, name=call.name, error=error)


def error_info_from(exc: BaseException) -> ErrorInfo:
    """Describe a raised exception: class name, message and its ``code`` attribute if a str."""
    try:
        code = getattr(exc, "code", None)
    except Exception:
        code = None
    if isinstance(exc, AbortError):
        code = "aborted"
    return ErrorInfo(
        name=type(exc).__name__,
        message=exception_text(exc),
        code=code if type(code) is str else None,
    )


async def unprocessable(report: CallReporter, call: ToolCall, exc: BaseException) -> ToolResult:
    """Block a call whose contents raised while dispatch read them: ``invalid_arguments``."""
    message = (
        "Tool call could not be processed: reading it raised "
        f"{type(exc).__name__}; arguments must be plain JSON values"
    )
    return await block(report, safe_call(call), "invalid_arguments", message)


_make_context = positional_factory(ToolExecutionContext)


class DispatchOptions:
    """Everything ``dispatch_tool_call`` takes besides the call, checked once.

    A plain slotted class rather than a frozen dataclass: it is built on every dispatch.
    """

    __slots__ = (
        "context", "emit", "ledger", "max_argument_bytes", "middleware", "permission",
        "redactor", "registry", "tool_filter", "validate",
    )  # fmt: skip

    def __init__(
        self,
        registry: ToolLookup,
        context: ToolExecutionContext | None = None,
        tool_filter: ToolFilter | Sequence[ToolFilter] | None = None,
        middleware: MiddlewareRegistry | None = None,
        permission: PermissionPolicy | None = None,
        validate: ToolValidator | None = None,
        emit: EventSink | None = None,
        ledger: RunLedger | None = None,
        redactor: Redactor | None = None,
        max_argument_bytes: int = 1_048_576,
    ) -> None:
        if max_argument_bytes != 1_048_576:
            check_count("max_argument_bytes", max_argument_bytes, cap=MAX_ARGUMENT_BYTES_CAP)
        if not callable(getattr(registry, "get", None)):
            raise TypeError("registry must have a get(name) method (see create_tool_registry)")
        self.registry = registry
        self.context = context
        self.tool_filter = tool_filter
        self.middleware = middleware
        self.permission = permission
        self.validate = validate
        self.emit = emit
        self.ledger = ledger
        self.redactor = redactor
        self.max_argument_bytes = max_argument_bytes

    def reporter(self, context: ToolExecutionContext | None) -> CallReporter:
        """A fresh reporter for one call made under ``context``."""
        session_id = context.session_id if context is not None else ""
        run_id = context.run_id if context is not None else ""
        return CallReporter.begin(session_id, run_id, self.emit, self.ledger, self.redactor)


async def dispatch_tool_call(
    call: ToolCall,
    *,
    registry: ToolLookup,
    context: ToolExecutionContext | None = None,
    tool_filter: ToolFilter | Sequence[ToolFilter] | None = None,
    middleware: MiddlewareRegistry | None = None,
    permission: PermissionPolicy | None = None,
    validate: ToolValidator | None = None,
    emit: EventSink | None = None,
    ledger: RunLedger | None = None,
    redactor: Redactor | None = None,
    max_argument_bytes: int = 1_048_576,
) -> ToolResult:
    """Run one tool call through the pipeline and return its result; never raises for tool
    problems (only for host cancellation or bad arguments to this function itself).

    Order: ``tool_call`` middleware → lookup, filter, argument check → permission →
    validator → execute → ``tool_result`` middleware → redaction, events, ledger.
    """
    opts = DispatchOptions(
        registry, context, tool_filter, middleware, permission, validate, emit, ledger,
        redactor, max_argument_bytes,
    )  # fmt: skip
    return await run_dispatch(call, opts, opts.reporter(context), context)


async def run_call_middleware(call: ToolCall, middleware: MiddlewareRegistry | None) -> ToolCall:
    """Step 1 alone: the ``tool_call`` hooks (raises what a middleware raises)."""
    if middleware is None or not middleware.has("tool_call"):
        return call
    return await middleware.run("tool_call", call, ToolCall)


async def middleware_failed(report: CallReporter, call: ToolCall, exc: Exception) -> ToolResult:
    """Block ``call`` because its ``tool_call`` middleware raised ``exc``."""
    info = error_info_from(exc)
    message = f"tool_call middleware failed: {info.name}: {info.message}"
    return await block(report, call, "middleware_failed", message)


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
        return await _pipeline(call, opts, report, context, call_middleware_done)
    except Exception as exc:
        return await unprocessable(report, call, exc)


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
            return await middleware_failed(report, call, exc)
    tool, refusal = _precheck(call, opts)
    if tool is None:
        if type(call.id) is not str or type(call.name) is not str:
            call = safe_call(call)
        return await block(report, call, *refusal)
    if opts.permission is not None:
        denial = await _permission_denial(call, opts.permission, report, context)
        if denial is not None:
            return await block(report, call, "permission_denied", denial)
    ctx = _call_context(context, call, report)
    if opts.validate is not None:
        why = await _run_validator(opts.validate, tool, call, ctx)
        if why is not None:
            return await block(report, call, "validation_failed", why.message, why.details)
    if ctx.signal.aborted:
        return await block_aborted(report, call, ctx.signal.reason)
    return await _execute(report, call, tool, ctx, middleware)


async def block_aborted(report: CallReporter, call: ToolCall, reason: object) -> ToolResult:
    """Block ``call`` because its signal was aborted before the handler started."""
    message = "Tool call aborted before it started" + (f": {reason}" if reason else "")
    return await block(report, call, "aborted", message)


_NO_REFUSAL: tuple[BlockedReason, str] = ("unknown_tool", "")


def _kind(value: object) -> str:
    return "a string" if type(value) is str else f"a {type(value).__name__}"


def _precheck(
    call: ToolCall, opts: DispatchOptions
) -> tuple[ToolDefinition, tuple[BlockedReason, str]] | tuple[None, tuple[BlockedReason, str]]:
    """Step 2: lookup, filter and the JSON-object check (all synchronous)."""
    if type(call.id) is not str or type(call.name) is not str:
        kinds = f"got {_kind(call.id)} and {_kind(call.name)}"
        return None, (
            "invalid_arguments",
            f"Tool call is malformed: id and name must be strings, {kinds}",
        )
    tool = opts.registry.get(call.name)
    if tool is None:
        return None, ("unknown_tool", f"Unknown tool: {call.name}")
    tool_filter = opts.tool_filter
    if tool_filter is not None and not tool_allowed(call.name, tool_filter):
        return None, ("tool_denied", f"Tool denied: {call.name}")
    why: str | None
    if call.arguments_error is not None:
        why = call.arguments_error.message or "the arguments could not be parsed"
    else:
        why = check_json_object(call.arguments, opts.max_argument_bytes)
    if why is not None:
        return None, ("invalid_arguments", f"Tool arguments must be a JSON object: {why}")
    return tool, _NO_REFUSAL


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


async def block(
    report: CallReporter,
    call: ToolCall,
    reason: BlockedReason,
    message: str,
    details: JsonObject | None = None,
) -> ToolResult:
    """A refused call: one blocked result, one blocked event, one blocked ledger row."""
    result = blocked_result(call, reason, message, details)
    if report.redactor is not None:
        result = report.redactor.redact(result)
    if report.emit is not None:
        await report.event(
            ToolExecutionBlocked(
                session_id=report.session_id,
                run_id=report.run_id,
                call=call,
                reason=reason,
                error=result.error or ErrorInfo(message=message, code=reason),
                duration_seconds=report.elapsed(),
            )
        )
    report.record(call, "blocked", reason=reason, result=result)
    return result


async def _execute(
    report: CallReporter,
    call: ToolCall,
    tool: ToolDefinition,
    ctx: ToolExecutionContext,
    middleware: MiddlewareRegistry | None,
) -> ToolResult:
    """Steps 5–7: started, run the handler, ``tool_result`` middleware, finish."""
    if report.emit is not None:
        pending = report.send(
            ToolExecutionStarted(session_id=report.session_id, run_id=report.run_id, call=call)
        )
        if pending is not None:
            await pending
    report.record(call, "started")
    try:
        execute = tool.execute
        if _is_async_handler(execute):
            raw = await execute(call.arguments, ctx)  # type: ignore[misc]
        else:
            raw = await _invoke_sync(tool, call, ctx)
        result = normalize_result(raw, call)
        if middleware is not None and middleware.has("tool_result"):
            result = await middleware.run("tool_result", result, ToolResult)
            if result.tool_call_id != call.id or result.name != call.name:
                result = dataclasses.replace(result, tool_call_id=call.id, name=call.name)
    except Exception as exc:
        return await fail(report, call, error_info_from(exc))
    if report.redactor is not None:
        result = report.redactor.redact(result)
    if report.emit is not None:
        pending = report.send(
            ToolExecutionFinished(
                session_id=report.session_id,
                run_id=report.run_id,
                call=call,
                result=result,
                duration_seconds=report.elapsed(),
            )
        )
        if pending is not None:
            await pending
    report.record(call, "finished", result=result)
    return result


async def fail(report: CallReporter, call: ToolCall, error: ErrorInfo) -> ToolResult:
    """The handler or result middleware raised: an error result, event and ledger row."""
    result = ToolResult(tool_call_id=call.id, name=call.name, error=error)
    if report.redactor is not None:
        result = report.redactor.redact(result)
        error = result.error or error
    if report.emit is not None:
        await report.event(
            ToolExecutionFailed(
                session_id=report.session_id,
                run_id=report.run_id,
                call=call,
                error=error,
                duration_seconds=report.elapsed(),
            )
        )
    report.record(call, "error", reason=error.code, result=result)
    return result


_ASYNC_HANDLERS: dict[object, bool] = {}
_ASYNC_HANDLERS_MAX = 4096


def _is_async_handler(execute: object) -> bool:
    """Whether ``execute`` is a coroutine function (cached: ``inspect`` is slow per call)."""
    try:
        return _ASYNC_HANDLERS[execute]
    except KeyError:
        pass
    except TypeError:  # unhashable callable object
        return _check_async(execute)
    if len(_ASYNC_HANDLERS) >= _ASYNC_HANDLERS_MAX:
        _ASYNC_HANDLERS.clear()
    result = _ASYNC_HANDLERS[execute] = _check_async(execute)
    return result


def _check_async(execute: object) -> bool:
    return inspect.iscoroutinefunction(execute) or inspect.iscoroutinefunction(
        getattr(execute, "__call__", None)  # noqa: B004
    )


async def _invoke_sync(tool: ToolDefinition, call: ToolCall, ctx: ToolExecutionContext) -> object:
    """Run a plain ``def`` handler in a worker thread (awaiting what it returns, if needed)."""
    execute = tool.execute
    out = await _backend.to_thread(lambda: execute(call.arguments, ctx))
    if hasattr(out, "__await__"):
        return await out
    return out


def normalize_result(raw: object, call: ToolCall) -> ToolResult:
    """Turn what a handler returned into a ``ToolResult`` stamped with this call's id and name."""
    if type(raw) is str:
        return ToolResult(tool_call_id=call.id, name=call.name, content=(TextContent(text=raw),))
    if isinstance(raw, ToolResult):
        if raw.tool_call_id == call.id and raw.name == call.name:
            return raw
        return dataclasses.replace(raw, tool_call_id=call.id, name=call.name)
    if isinstance(raw, str):
        return ToolResult(tool_call_id=call.id, name=call.name, content=(TextContent(text=raw),))
    if raw is None:
        return ToolResult(tool_call_id=call.id, name=call.name)
    if isinstance(raw, (list, tuple)) and all(isinstance(b, CONTENT_TYPES) for b in raw):
        return ToolResult(tool_call_id=call.id, name=call.name, content=tuple(raw))
    if isinstance(raw, (dict, list, tuple, int, float, bool)):
        return ToolResult(tool_call_id=call.id, name=call.name, value=raw)
    raise TypeError(
        f"tool {call.name!r} returned {type(raw).__name__}; expected ToolResult, str, "
        "a sequence of content blocks or a JSON value"
    )
