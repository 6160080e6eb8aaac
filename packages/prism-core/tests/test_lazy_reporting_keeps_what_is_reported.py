"""What the judged dispatch row stopped paying for per call is still reported the same way:
compact in-memory ledger rows read as the records any other ledger receives, the static
policy asked by key decides as it does by request, and a held ``ToolPipeline`` dispatches
exactly as ``dispatch_tool_call`` with the same settings."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    PermissionRequest,
    ToolCall,
    ToolCallRecord,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
)
from prism.core.events import AgentEvent


class _RecordLedger:
    """A ledger that takes whole records (as durable ledgers do)."""

    def __init__(self) -> None:
        self.records: list[ToolCallRecord] = []

    def append(self, record: ToolCallRecord) -> None:
        self.records.append(record)


async def _echo(arguments: dict[str, object], context: ToolExecutionContext) -> str:
    return f"{context.tool_call_id}:{sorted(arguments)}"


async def _boom(arguments: dict[str, object], context: ToolExecutionContext) -> str:
    raise RuntimeError("boom")


_REGISTRY = ToolRegistry(
    [ToolDefinition(name="echo", execute=_echo), ToolDefinition(name="boom", execute=_boom)]
)
_CALLS = (
    ToolCall(id="a", name="echo", arguments={"x": 1, "y": "z"}),
    ToolCall(id="b", name="boom", arguments={}),
    ToolCall(id="c", name="nope", arguments={}),
    ToolCall(id="d", name="shell", arguments={}),
)


def _content(record: ToolCallRecord) -> tuple[object, ...]:
    """Every field but the row id and the two times (which differ between ledgers)."""
    return (
        record.session_id, record.run_id, record.tool_call_id, record.name, record.arguments,
        record.status, record.reason, record.result,
    )  # fmt: skip


async def _dispatch_all(ledger: object) -> None:
    gates = ToolGates(
        ledger=ledger,  # type: ignore[arg-type]
        permission=create_static_permission_policy(deny=("tool:shell:*",)),
    )
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="", signal=AbortController().signal
    )
    for call in _CALLS:
        await dispatch_tool_call(call, registry=_REGISTRY, context=context, gates=gates)


@pytest.mark.anyio
async def test_compact_in_memory_rows_read_as_the_records_a_record_ledger_receives() -> None:
    compact, whole = InMemoryRunLedger(), _RecordLedger()
    before = datetime.now(UTC)
    await _dispatch_all(compact)
    await _dispatch_all(whole)
    rows = compact.records
    assert [_content(r) for r in rows] == [_content(r) for r in whole.records]
    assert [r.status for r in rows] == [
        "started", "finished", "started", "error", "blocked", "blocked",
    ]  # fmt: skip
    assert all(type(r) is ToolCallRecord for r in rows)
    assert len({r.id for r in rows}) == len(rows)
    for row in rows:
        assert row.started_at.tzinfo is UTC and before <= row.started_at <= datetime.now(UTC)
        assert (row.finished_at is None) == (row.status == "started")
    started, finished = rows[0], rows[1]
    assert started.started_at == finished.started_at
    assert finished.finished_at is not None and finished.finished_at >= finished.started_at
    assert compact.records == rows  # read again: equal rows, each built once
    assert all(a is b for a, b in zip(compact.records, rows, strict=True))


def test_records_appended_whole_and_compact_keep_their_order() -> None:
    ledger = InMemoryRunLedger()
    record = ToolCallRecord(
        id="x-1", session_id="s", run_id="r", tool_call_id="c", name="n", arguments={},
        status="blocked", reason="tool_denied", result=None,
        started_at=datetime.now(UTC), finished_at=datetime.now(UTC),
    )  # fmt: skip
    now = datetime.now(UTC).timestamp()
    ledger.append_fields((7, "s", "r", "c", "n", {}, "started", None, None, now, None))
    ledger.append(record)
    first, second = ledger.records
    assert (first.status, first.finished_at, second) == ("started", None, record)
    assert first.id.endswith("-7") and first.started_at.timestamp() == pytest.approx(now)
    assert len(ledger) == 2


def test_concurrent_readers_see_equal_rows() -> None:
    ledger = InMemoryRunLedger()
    now = datetime.now(UTC).timestamp()
    for number in range(2_000):
        ledger.append_fields((number, "s", "r", "c", "n", {}, "started", None, None, now, None))
    seen: list[tuple[ToolCallRecord, ...]] = []
    readers = [threading.Thread(target=lambda: seen.append(ledger.records)) for _ in range(4)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=60)
    assert len(seen) == 4 and all(rows == seen[0] for rows in seen)
    assert [row.id.rsplit("-", 1)[1] for row in seen[0]] == [str(n) for n in range(2_000)]


_PATTERN = st.sampled_from(("tool:*:execute", "tool:shell:*", "tool:a*:*", "*", "tool:b:execute"))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(
    allow=st.lists(_PATTERN, max_size=3),
    deny=st.lists(_PATTERN, max_size=3),
    name=st.sampled_from(("a", "ab", "b", "shell", "x:y")),
)
def test_the_static_policy_decides_by_key_as_it_does_by_request(
    allow: list[str], deny: list[str], name: str
) -> None:
    policy = create_static_permission_policy(allow=allow, deny=deny)
    request = PermissionRequest(kind="tool", target=name, action="execute", metadata={"k": 1})
    by_request = policy.check(request)
    by_key = policy.decide(request.key)  # type: ignore[attr-defined]
    assert by_key == by_request


@pytest.mark.anyio
async def test_a_static_denial_blocks_with_the_message_a_request_gets() -> None:
    policy = create_static_permission_policy(allow=("tool:echo:*",))
    gates = ToolGates(permission=policy)
    call = ToolCall(id="1", name="boom", arguments={})
    result = await dispatch_tool_call(call, registry=_REGISTRY, gates=gates)
    assert result.error is not None and result.error.code == "permission_denied"
    assert result.error.message == "Permission denied: tool:boom:execute is not in the allow list"


@pytest.mark.anyio
async def test_a_held_pipeline_dispatches_as_dispatch_tool_call_does() -> None:
    outcomes = []
    for held in (True, False):
        ledger, events = InMemoryRunLedger(), list[AgentEvent]()
        gates = ToolGates(
            ledger=ledger,
            tool_filter=ToolFilter(deny=("nope",)),
            permission=create_static_permission_policy(deny=("tool:shell:*",)),
        )
        pipeline = ToolPipeline(registry=_REGISTRY, gates=gates, emit=events.append)
        results: list[ToolResult] = []
        for call in _CALLS:
            if held:
                results.append(await pipeline.dispatch(call))
            else:
                results.append(
                    await dispatch_tool_call(
                        call, registry=_REGISTRY, gates=gates, emit=events.append
                    )
                )
        outcomes.append(
            (results, [(e.type, e.call) for e in events], [_content(r) for r in ledger.records])
        )
    assert outcomes[0] == outcomes[1]


@pytest.mark.anyio
async def test_a_pipeline_checks_its_registry_once_and_a_per_call_one_each_time() -> None:
    with pytest.raises(TypeError, match="get\\(name\\)"):
        ToolPipeline(registry=object())  # type: ignore[arg-type]
    pipeline = ToolPipeline()
    call = ToolCall(id="1", name="echo", arguments={})
    with pytest.raises(TypeError, match="has none"):
        await pipeline.dispatch(call)
    with pytest.raises(TypeError, match="get\\(name\\)"):
        await pipeline.dispatch(call, registry=object())  # type: ignore[arg-type]
    result = await pipeline.dispatch(call, registry=_REGISTRY)
    assert result.content[0].text == "1:[]"  # type: ignore[union-attr]
