"""The success path, result normalization, handler failures, middleware and validators."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from prism.core import (
    AbortError,
    ErrorInfo,
    ImageContent,
    InMemoryRunLedger,
    MiddlewareRegistry,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
)

pytestmark = pytest.mark.anyio


def _call(name: str = "t", **args: Any) -> ToolCall:
    return ToolCall(id="id-1", name=name, arguments=args)


async def _run(execute: Any, call: ToolCall | None = None, **options: Any) -> ToolResult:
    registry = ToolRegistry([ToolDefinition(name="t", execute=execute)])
    return await dispatch_tool_call(call or _call(), registry=registry, **options)


@pytest.mark.parametrize(
    ("returned", "content", "value"),
    [
        ("plain", (TextContent(text="plain"),), None),
        ([TextContent(text="a"), ImageContent(data="AA", mime_type="image/png")],
         (TextContent(text="a"), ImageContent(data="AA", mime_type="image/png")), None),
        ({"k": 1}, (), {"k": 1}),
        (None, (), None),
    ],
)  # fmt: skip
async def test_returns_are_normalized_and_stamped(
    returned: object, content: tuple[Any, ...], value: object
) -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> object:
        return returned

    result = await _run(execute)
    assert (result.tool_call_id, result.name) == ("id-1", "t")
    assert result.content == content
    assert result.value == value
    assert not result.is_error


async def test_a_returned_result_is_stamped_with_the_dispatched_id() -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult(tool_call_id="wrong", name="wrong", value=1)

    result = await _run(execute)
    assert (result.tool_call_id, result.name, result.value) == ("id-1", "t", 1)


async def test_sync_handler_runs_in_a_worker_thread() -> None:
    seen: list[bool] = []

    def execute(args: Any, ctx: ToolExecutionContext) -> str:
        seen.append(threading.current_thread() is threading.main_thread())
        return "sync"

    result = await _run(execute)
    assert result.content == (TextContent(text="sync"),)
    assert seen == [False]


async def test_handler_exception_becomes_error_event_and_row(events: Any) -> None:
    class QuotaError(Exception):
        code = "quota"

    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        raise QuotaError("daily quota used up")

    ledger = InMemoryRunLedger()
    result = await _run(execute, emit=events, gates=ToolGates(ledger=ledger))
    assert result.error == ErrorInfo(name="QuotaError", message="daily quota used up", code="quota")
    assert events.types() == ["tool_execution_started", "tool_execution_failed"]
    assert [r.status for r in ledger.records] == ["started", "error"]
    assert ledger.records[1].finished_at is not None


async def test_abort_error_from_handler_has_code_aborted() -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        raise AbortError("stop")

    result = await _run(execute)
    assert result.error is not None and result.error.code == "aborted"


async def test_returned_error_is_a_finished_call(events: Any) -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult(tool_call_id="", name="", error=ErrorInfo(message="not found"))

    result = await _run(execute, emit=events)
    assert result.is_error
    assert events.types() == ["tool_execution_started", "tool_execution_finished"]


async def test_unsupported_return_type_is_an_error() -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> object:
        return object()

    result = await _run(execute)
    assert result.error is not None and "returned object" in result.error.message


async def test_handler_gets_context_stamped_with_call_id() -> None:
    seen: list[ToolExecutionContext] = []

    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        seen.append(ctx)
        return ""

    await _run(execute)
    assert seen[0].tool_call_id == "id-1"
    assert (seen[0].session_id, seen[0].run_id) == ("", "")
    assert not seen[0].signal.aborted


async def test_progress_reports_become_events(events: Any) -> None:
    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        await ctx.progress(0.5, "halfway")
        return "done"

    await _run(execute, emit=events)
    assert events.types() == [
        "tool_execution_started",
        "tool_execution_progress",
        "tool_execution_finished",
    ]
    progress = events.events[1]
    assert (progress.progress, progress.message) == (0.5, "halfway")


async def test_middleware_rename_is_rechecked_by_lookup_filter_and_permission(
    canary: Any,
) -> None:
    middleware = MiddlewareRegistry()
    middleware.use("tool_call", lambda call: ToolCall(id=call.id, name="danger", arguments={}))
    registry = ToolRegistry([canary.tool("safe"), canary.tool("danger")])
    call = ToolCall(id="c", name="safe", arguments={})
    by_filter = await dispatch_tool_call(
        call,
        registry=registry,
        gates=ToolGates(middleware=middleware, tool_filter=ToolFilter(allow=["safe"])),
    )
    assert by_filter.error is not None and by_filter.error.code == "tool_denied"
    by_permission = await dispatch_tool_call(
        call,
        registry=registry,
        gates=ToolGates(
            middleware=middleware,
            permission=create_static_permission_policy(deny=["tool:danger:*"]),
        ),
    )
    assert by_permission.error is not None and by_permission.error.code == "permission_denied"
    lookup = MiddlewareRegistry()
    lookup.use("tool_call", lambda call: ToolCall(id=call.id, name="ghost", arguments={}))
    unknown = await dispatch_tool_call(call, registry=registry, gates=ToolGates(middleware=lookup))
    assert unknown.error is not None and unknown.error.message == "Unknown tool: ghost"
    assert canary.entered == []


async def test_middleware_returning_none_keeps_the_value(canary: Any) -> None:
    seen: list[str] = []
    middleware = MiddlewareRegistry()
    middleware.use("tool_call", lambda call: seen.append(call.name))
    middleware.use("tool_result", lambda result: None)

    async def add_note(result: ToolResult) -> ToolResult:
        return ToolResult(tool_call_id="x", name="x", content=(TextContent(text="noted"),))

    middleware.use("tool_result", add_note)
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        gates=ToolGates(middleware=middleware),
    )
    assert seen == ["echo"]
    assert canary.entered == ["c"]
    assert result.content == (TextContent(text="noted"),)
    assert (result.tool_call_id, result.name) == ("c", "echo")


async def test_raising_result_middleware_is_an_error_event(canary: Any, events: Any) -> None:
    middleware = MiddlewareRegistry()

    def explode(result: ToolResult) -> ToolResult:
        raise ValueError("bad rewrite")

    middleware.use("tool_result", explode)
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        gates=ToolGates(middleware=middleware),
        emit=events,
    )
    assert result.error is not None and result.error.message == "bad rewrite"
    assert events.types() == ["tool_execution_started", "tool_execution_failed"]


async def test_middleware_returning_wrong_type_fails_closed(canary: Any) -> None:
    middleware = MiddlewareRegistry()
    middleware.use("tool_call", lambda call: "not a call")
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        gates=ToolGates(middleware=middleware),
    )
    assert result.error is not None and result.error.code == "middleware_failed"
    assert "returned str" in result.error.message
    assert canary.entered == []


async def test_raising_event_sink_changes_nothing(canary: Any, caplog: Any) -> None:
    def sink(event: Any) -> None:
        raise RuntimeError("sink down")

    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        emit=sink,
    )
    assert result.content == (TextContent(text="echo ran"),)
    assert "event sink raised" in caplog.text


async def test_async_event_sink_is_awaited(canary: Any) -> None:
    got: list[str] = []

    async def sink(event: Any) -> None:
        got.append(event.type)

    await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        emit=sink,
    )
    assert got == ["tool_execution_started", "tool_execution_finished"]


async def test_ledger_rows_carry_ids_and_utc_times(canary: Any) -> None:
    ledger = InMemoryRunLedger()
    context = ToolExecutionContext(
        session_id="s1",
        run_id="r1",
        tool_call_id="",
        signal=__import__("prism.core").core.AbortController().signal,
    )
    await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={"a": 1}),
        registry=ToolRegistry([canary.tool("echo")]),
        context=context,
        gates=ToolGates(ledger=ledger),
    )
    started, finished = ledger.records
    assert (started.status, finished.status) == ("started", "finished")
    assert {r.session_id for r in ledger.records} == {"s1"}
    assert {r.run_id for r in ledger.records} == {"r1"}
    assert started.finished_at is None and finished.result is not None
    assert finished.finished_at is not None and finished.finished_at.tzinfo is not None
    assert started.id != finished.id
