"""One ``tools/call`` from an MCP client through the whole Prism pipeline."""

from __future__ import annotations

import itertools
from typing import Any

import anyio

from mcp import MCPError, types
from mcp.server.context import ServerRequestContext
from prism.core import AbortController, ToolCall, ToolExecutionContext, ToolPipeline

from ._approval import CURRENT_REQUEST
from ._options import ServeOptions
from ._results import ERROR_META_KEY, to_call_result

__all__ = ["call_tool"]

_LEGACY_PREFIX = "2025-"
_NOT_SERVED = frozenset({"unknown_tool", "tool_denied"})
_ids = itertools.count(1)


def _error(message: str, code: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        is_error=True,
        _meta={ERROR_META_KEY: {"code": code}},
    )


def _progress(ctx: ServerRequestContext[Any]) -> Any:
    steps = itertools.count(1)

    async def report(value: float | None, message: str | None) -> None:
        progress = float(value) if value is not None else float(next(steps))
        try:
            await ctx.session.report_progress(progress, None, message)
        except Exception:  # a client that went away must not fail the tool
            return

    return report


async def call_tool(
    pipeline: ToolPipeline,
    options: ServeOptions,
    ctx: ServerRequestContext[Any],
    params: types.CallToolRequestParams,
) -> types.CallToolResult:
    """Dispatch the call; a cancelled request aborts it, a deadline ends it with an error."""
    arguments = params.arguments if params.arguments is not None else {}
    request_id = ctx.request_id if ctx.request_id is not None else f"local-{next(_ids)}"
    call = ToolCall(id=f"mcp-{request_id}", name=params.name, arguments=arguments)
    controller = AbortController()
    context = ToolExecutionContext(
        session_id=options.session_id,
        run_id="",
        tool_call_id=call.id,
        signal=controller.signal,
        progress=_progress(ctx),
    )
    token = CURRENT_REQUEST.set(ctx)
    try:
        timeout = options.call_timeout_seconds
        with anyio.move_on_after(timeout if timeout is not None else float("inf")) as scope:
            result = await pipeline.dispatch(call, context)
    except BaseException:
        controller.abort("the client cancelled the call")
        raise
    finally:
        CURRENT_REQUEST.reset(token)
    if scope.cancelled_caught:
        controller.abort("the call ran past its deadline")
        return _error(
            f"tool {params.name!r} timed out after {timeout} s (ServeOptions.call_timeout_seconds)",
            "timeout",
        )
    if result.error is not None and result.error.code in _NOT_SERVED:
        # The spec's answer to an unknown tool is a protocol error, not a tool result; a tool
        # the filter hides is not listed, so it is unknown too (its existence is not revealed).
        message = f"Unknown tool: {params.name}"
        raise MCPError(code=types.INVALID_PARAMS, message=message, data=params.name)
    legacy = ctx.protocol_version.startswith(_LEGACY_PREFIX)
    return to_call_result(
        result, max_bytes=options.max_result_bytes, structured_objects_only=legacy
    )
