"""The results dispatch gives a call that does not finish normally, each one reported.

Every ``…_outcome`` function returns the call's result after sending its event and ledger row,
so a refused, failed or aborted call is reported exactly once, the same way on every path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _on_demand
from ._abort import AbortError
from ._hostile import exception_text, safe_call
from ._reporting import CallReporter
from ._types import ErrorInfo, JsonObject, ToolCall, ToolResult

if TYPE_CHECKING:  # for annotations only: events load with the first event sent
    from .events import BlockedReason

__all__ = [
    "aborted_outcome",
    "blocked_outcome",
    "blocked_result",
    "error_info_from",
    "failed_outcome",
    "middleware_failed_outcome",
    "unprocessable_outcome",
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


async def blocked_outcome(
    report: CallReporter,
    call: ToolCall,
    reason: BlockedReason,
    message: str,
    details: JsonObject | None = None,
) -> ToolResult:
    """A refused call's result, after one blocked event and one blocked ledger row."""
    result = blocked_result(call, reason, message, details)
    return await report.conclude(
        call,
        result,
        "blocked",
        reason,
        lambda redacted: _on_demand.ToolExecutionBlocked(
            session_id=report.session_id,
            run_id=report.run_id,
            call=call,
            reason=reason,
            error=redacted.error or ErrorInfo(message=message, code=reason),
            duration_seconds=report.elapsed(),
        ),
    )


async def failed_outcome(report: CallReporter, call: ToolCall, error: ErrorInfo) -> ToolResult:
    """The handler or result middleware raised: the error result, after its event and row."""
    return await report.conclude(
        call,
        ToolResult(tool_call_id=call.id, name=call.name, error=error),
        "error",
        error.code,
        lambda redacted: _on_demand.ToolExecutionFailed(
            session_id=report.session_id,
            run_id=report.run_id,
            call=call,
            error=redacted.error or error,
            duration_seconds=report.elapsed(),
        ),
    )


async def aborted_outcome(report: CallReporter, call: ToolCall, reason: object) -> ToolResult:
    """``call`` blocked because its signal was aborted before the handler started."""
    message = "Tool call aborted before it started" + (f": {reason}" if reason else "")
    return await blocked_outcome(report, call, "aborted", message)


async def unprocessable_outcome(
    report: CallReporter, call: ToolCall, exc: BaseException
) -> ToolResult:
    """``call`` blocked with ``invalid_arguments`` because reading its contents raised."""
    message = (
        "Tool call could not be processed: reading it raised "
        f"{type(exc).__name__}; arguments must be plain JSON values"
    )
    return await blocked_outcome(report, safe_call(call), "invalid_arguments", message)


async def middleware_failed_outcome(
    report: CallReporter, call: ToolCall, exc: Exception
) -> ToolResult:
    """``call`` blocked because its ``tool_call`` middleware raised ``exc``."""
    info = error_info_from(exc)
    message = f"tool_call middleware failed: {info.name}: {info.message}"
    return await blocked_outcome(report, call, "middleware_failed", message)
