"""``dispatch_tool_call``: the one pipeline every tool call goes through, in a frozen order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Unpack

from . import _on_demand
from ._abort import NEVER_ABORTED
from ._arguments import LOOP_NODES, canonical_json_object, decode_in_worker
from ._dispatch_options import DispatchOptions, DispatchSettings
from ._fastinit import positional_factory
from ._handler import executed_outcome
from ._hostile import exception_text, read_call, safe_call
from ._outcomes import (
    aborted_outcome,
    blocked_outcome,
    middleware_failed_outcome,
    unprocessable_outcome,
)
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

if TYPE_CHECKING:  # for annotations only: a dispatch without gates loads none of them
    from ._middleware import MiddlewareRegistry
    from ._permission import PermissionDecision, PermissionPolicy
    from ._validation import ToolValidator
    from .events import BlockedReason

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
    opts = DispatchOptions.of(settings)
    context = settings.get("context")
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
    """The pipeline for one call with a caller-owned reporter (batch dispatch shares it), each
    step awaited directly. Never raises for anything inside ``call``: whatever its contents
    raise while being read blocks the call with ``invalid_arguments``."""
    if type(call) is not ToolCall and not isinstance(call, ToolCall):
        raise TypeError(f"dispatch.call must be a ToolCall, got {call!r:.200}")
    given = call
    try:
        if type(call) is not ToolCall:
            call = given = read_call(call)
        middleware = opts.middleware
        if not call_middleware_done and middleware is not None:  # no hooks: the call as is
            try:
                applied = middleware.apply("tool_call", call, ToolCall)
                call = applied if isinstance(applied, ToolCall) else await applied
            except Exception as exc:
                return await middleware_failed_outcome(report, call, exc)
            if type(call) is not ToolCall:
                call = read_call(call)
        checked = _precheck(call, opts)
        if len(checked) == 2:  # refused: (reason, message)
            return await _refused(report, call, checked)
        tool, decoded = checked[1], checked[2]
        if decoded is None:  # too large to decode on the loop: in a worker thread
            off_loop = await _decode_off_loop(call, opts, report)
            if isinstance(off_loop, ToolResult):  # refused
                return off_loop
            decoded = off_loop
        call = decoded
        if report.redactor is not None:
            report.weigh_arguments(call)
        if opts.permission is not None:
            denial = _permission_denial(
                call, opts.permission, opts.permission_by_key, report, context
            )
            if denial is not None and not isinstance(denial, str):  # an async policy's answer
                denial = await denial
            if denial is not None:
                return await blocked_outcome(report, call, "permission_denied", denial)
        ctx = _call_context(context, call, report)
        if opts.validator is not None:
            why = _run_validator(opts.validator, tool, call, ctx)
            if why is not None and not isinstance(why, ErrorInfo):  # an async validator's answer
                why = await why
            if why is not None:
                return await blocked_outcome(
                    report, call, "validation_failed", why.message, why.details
                )
        if ctx.signal.aborted:
            return await aborted_outcome(report, call, ctx.signal.reason)
        return await executed_outcome(report, call, tool, ctx, middleware)
    except Exception as exc:
        return await unprocessable_outcome(report, given, exc)


async def _refused(
    report: CallReporter, call: ToolCall, refusal: tuple[BlockedReason, str]
) -> ToolResult:
    """Step 2 refused ``call``: blocked, with arguments that are not JSON never reported."""
    reason, message = refusal
    if reason == "invalid_arguments" or type(call.name) is not str:
        call = safe_call(call)
    return await blocked_outcome(report, call, reason, message)


def _kind(value: object) -> str:
    return "a string" if type(value) is str else f"a {type(value).__name__}"


def _precheck(
    call: ToolCall, opts: DispatchOptions
) -> tuple[BlockedReason, str] | tuple[None, ToolDefinition, ToolCall | None]:
    """Step 2: lookup, filter and the JSON-object check (all synchronous).

    Returns ``(None, tool, call)`` with the call's arguments decoded once into canonical JSON
    (what the validator checks and the handler receives), or why the call is refused as
    ``(reason, message)``; ``(None, tool, None)`` when the arguments are too large to decode
    on the event loop (``_decode_off_loop``).
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
    admits = opts.admits
    if admits is not None and not admits(call.name):
        return ("tool_denied", f"Tool denied: {call.name}")
    if call.arguments_error is not None:
        why = call.arguments_error.message or "the arguments could not be parsed"
        return ("invalid_arguments", f"Tool arguments must be a JSON object: {why}")
    arguments, refused = canonical_json_object(call.arguments, opts.max_argument_bytes, LOOP_NODES)
    if arguments is None:
        if refused is None:
            return (None, tool, None)
        return ("invalid_arguments", f"Tool arguments must be a JSON object: {refused}")
    return (None, tool, _make_call(call.id, call.name, arguments, None))


async def _decode_off_loop(
    call: ToolCall, opts: DispatchOptions, report: CallReporter
) -> ToolCall | ToolResult:
    """Decode large arguments in a worker thread (the loop keeps running): the call with its
    canonical arguments, or the blocked result refusing them."""
    from . import _backend  # loaded by the first call this large

    raw, limit = call.arguments, opts.max_argument_bytes
    arguments, refused = await _backend.to_thread(lambda: decode_in_worker(raw, limit))
    if arguments is None:
        why = f"Tool arguments must be a JSON object: {refused}"
        return await blocked_outcome(report, safe_call(call), "invalid_arguments", why)
    return _make_call(call.id, call.name, arguments, None)


_make_call = positional_factory(ToolCall, ("id", "name", "arguments", "arguments_error"))


def _permission_denial(
    call: ToolCall,
    permission: PermissionPolicy,
    by_key: Callable[[str], PermissionDecision] | None,
    report: CallReporter,
    context: ToolExecutionContext | None,
) -> str | None | Awaitable[str | None]:
    """Step 3: ``tool:<name>:execute``; the denial reason or ``None`` (an awaitable of either
    only for an async policy, so a sync policy costs no coroutine). A policy that reads only
    the key (the static one, ``by_key``) is asked by key: no request is built for it."""
    if by_key is not None:
        key = f"tool:{call.name}:execute"
        verdict = by_key(key)
        return None if verdict.allowed is True else _denial(verdict, key)
    metadata: dict[str, object] = {
        "session_id": report.session_id,
        "run_id": report.run_id,
        "tool_call_id": call.id,
        "arguments": call.arguments,
    }
    if context is not None and context.metadata:
        metadata.update(context.metadata)
    request = _on_demand.make_request("tool", call.name, "execute", metadata)
    decision = _on_demand.ask_permission(permission, request)
    if isinstance(decision, _on_demand.PermissionDecision):
        return _denial(decision, request.key)
    return _awaited_denial(decision, request.key)


def _denial(decision: PermissionDecision, key: str) -> str | None:
    if decision.allowed:
        return None
    reason = decision.reason
    return reason if isinstance(reason, str) and reason else f"Permission denied: {key}"


async def _awaited_denial(decision: Awaitable[PermissionDecision], key: str) -> str | None:
    return _denial(await decision, key)


def _call_context(
    context: ToolExecutionContext | None, call: ToolCall, report: CallReporter
) -> ToolExecutionContext:
    """The handler's context: the caller's, stamped with this call's id and progress events."""
    if report.emit is None:
        if context is None:
            return _make_context("", "", call.id, NEVER_ABORTED, EMPTY_MAPPING, _no_progress)
        if context.tool_call_id == call.id:
            return context
        progress = context.progress
    else:  # the reporter emits this call's progress events, then calls the caller's callback
        report.progress_call = call
        if context is not None:
            report.outer_progress = context.progress
        progress = report.progress
    if context is None:
        return _make_context("", "", call.id, NEVER_ABORTED, EMPTY_MAPPING, progress)
    return _make_context(
        context.session_id, context.run_id, call.id, context.signal, context.metadata, progress
    )


def _run_validator(
    validate: ToolValidator, tool: ToolDefinition, call: ToolCall, ctx: ToolExecutionContext
) -> ErrorInfo | None | Awaitable[ErrorInfo | None]:
    """Step 4: ``None`` passes; any ``str`` (even empty) or ``ErrorInfo`` blocks.

    Returns what to block with (the message, and the validator's ``details`` if it gave any),
    or an awaitable of it only when the validator itself returned an awaitable.
    """
    try:
        outcome = validate(tool, call.arguments, ctx)
    except Exception as exc:
        return _validator_crashed(exc)
    if outcome is None:
        return None
    if hasattr(outcome, "__await__"):
        return _awaited_verdict(outcome, call.name)
    return _verdict(outcome, call.name)


async def _awaited_verdict(outcome: Awaitable[object], name: str) -> ErrorInfo | None:
    try:
        settled = await outcome
    except Exception as exc:
        return _validator_crashed(exc)
    return None if settled is None else _verdict(settled, name)


def _validator_crashed(exc: Exception) -> ErrorInfo:
    text = exception_text(exc)
    return ErrorInfo(message=f"Argument validator failed: {type(exc).__name__}: {text}")


def _verdict(outcome: object, name: str) -> ErrorInfo:
    """What blocks the call, from a validator's non-``None`` answer."""
    fallback = f"Arguments for {name} failed validation"
    if isinstance(outcome, ErrorInfo):
        return ErrorInfo(message=outcome.message or fallback, details=outcome.details)
    if isinstance(outcome, str):
        return ErrorInfo(message=outcome or fallback)
    return ErrorInfo(
        message=f"Argument validator returned {type(outcome).__name__}; treated as a failure"
    )
