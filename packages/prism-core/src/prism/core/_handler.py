"""Running a tool's handler: started, the handler, ``tool_result`` middleware, finished."""

from __future__ import annotations

import dataclasses
import inspect
import time
from typing import TYPE_CHECKING

from . import _on_demand
from ._outcomes import error_info_from, failed_outcome
from ._reporting import CallReporter
from ._types import (
    CONTENT_TYPES,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)

if TYPE_CHECKING:  # for annotations only: a dispatch without middleware does not load it
    from ._middleware import MiddlewareRegistry

__all__ = ["ASYNC_HANDLER_CACHE_SIZE", "executed_outcome", "is_async_handler", "normalize_result"]


async def executed_outcome(
    report: CallReporter,
    call: ToolCall,
    tool: ToolDefinition,
    ctx: ToolExecutionContext,
    middleware: MiddlewareRegistry | None,
) -> ToolResult:
    """The result of running ``tool`` for ``call``, reported as started, then finished or failed."""
    if report.emit is not None:
        pending = report.send(
            _on_demand.make_started(
                report.session_id, report.run_id, call, "tool_execution_started"
            )
        )
        if pending is not None:
            await pending
    pending = report.record(call, "started")
    if pending is not None:
        await pending
    try:
        execute = tool.execute
        if is_async_handler(execute):
            raw = await execute(call.arguments, ctx)  # type: ignore[misc]
        else:
            raw = await _invoke_sync(tool, call, ctx)
        if type(raw) is ToolResult and raw.tool_call_id == call.id and raw.name == call.name:
            result = raw  # already this call's result (what normalize_result returns for it)
        else:
            result = normalize_result(raw, call)
        if middleware is not None:  # without tool_result hooks, apply returns the result
            applied = middleware.apply("tool_result", result, ToolResult)
            result = applied if isinstance(applied, ToolResult) else await applied
            if result.tool_call_id != call.id or result.name != call.name:
                result = dataclasses.replace(result, tool_call_id=call.id, name=call.name)
    except Exception as exc:
        return await failed_outcome(report, call, error_info_from(exc))
    # The same redact -> event -> ledger order as ``CallReporter.conclude``, written out: this
    # is the hot path, and the extra coroutine frame and closure measured about 3% per call.
    if report.redactor is not None:
        result = await report.redacted(result)
    if report.emit is not None:
        duration = time.perf_counter() - report.started  # report.elapsed(), one call less
        event = _on_demand.make_finished(
            report.session_id, report.run_id, call, result, duration, "tool_execution_finished"
        )
        pending = report.send(event)
        if pending is not None:
            await pending
    pending = report.record(call, "finished", None, result)
    if pending is not None:
        await pending
    return result


ASYNC_HANDLER_CACHE_SIZE = 4096
"""At most this many handlers are remembered; the cache starts over when it is full."""
_ASYNC_HANDLERS: dict[object, bool] = {}


def is_async_handler(execute: object) -> bool:
    """Whether ``execute`` is a coroutine function (cached: ``inspect`` is slow per call)."""
    try:
        return _ASYNC_HANDLERS[execute]
    except KeyError:
        pass
    except TypeError:  # unhashable callable object
        return _check_async(execute)
    if len(_ASYNC_HANDLERS) >= ASYNC_HANDLER_CACHE_SIZE:
        _ASYNC_HANDLERS.clear()
    result = _ASYNC_HANDLERS[execute] = _check_async(execute)
    return result


def _check_async(execute: object) -> bool:
    return inspect.iscoroutinefunction(execute) or inspect.iscoroutinefunction(
        getattr(execute, "__call__", None)  # noqa: B004
    )


async def _invoke_sync(tool: ToolDefinition, call: ToolCall, ctx: ToolExecutionContext) -> object:
    """Run a plain ``def`` handler in a worker thread (awaiting what it returns, if needed)."""
    from . import _backend  # loaded by the first plain-def handler (a thread hop dwarfs this)

    execute = tool.execute
    out: object = await _backend.to_thread(lambda: execute(call.arguments, ctx))
    if inspect.isawaitable(out):
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
        f"tool {call.name!r}: returned {type(raw).__name__}; expected ToolResult, str, "
        "a sequence of content blocks or a JSON value"
    )
