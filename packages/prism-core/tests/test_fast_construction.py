"""The two construction shortcuts on the dispatch path stay correct when the records change:
a positional factory refuses a field order its call site does not pass, and a ``fast_init``
``__init__`` behaves exactly like the one ``dataclasses`` generates."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime

import pytest

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    ToolCall,
    ToolCallRecord,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)
from prism.core._fastinit import fast_init, positional_factory
from prism.core._reporting import CallReporter


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Pair:
    first: str
    second: str


def test_a_factory_for_a_reordered_record_fails_at_import_time() -> None:
    with pytest.raises(TypeError, match="positional call site passes"):
        positional_factory(_Pair, ("second", "first"))
    with pytest.raises(TypeError, match="positional call site passes"):
        positional_factory(_Pair, ("first",))
    assert positional_factory(_Pair, ("first", "second"))("a", "b") == _Pair(first="a", second="b")


async def _echo(arguments: object, context: ToolExecutionContext) -> str:
    return f"{context.session_id}/{context.run_id}/{context.tool_call_id}"


@pytest.mark.anyio
async def test_the_handler_context_and_ledger_rows_carry_each_field_in_its_place() -> None:
    signal = AbortController().signal
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="", signal=signal, metadata={"k": "v"}
    )
    ledger = InMemoryRunLedger()
    registry = ToolRegistry([ToolDefinition(name="echo", execute=_echo)])
    call = ToolCall(id="c1", name="echo", arguments={"a": 1})
    result = await dispatch_tool_call(
        call, registry=registry, context=context, gates=ToolGates(ledger=ledger)
    )
    assert result.content[0].text == "s/r/c1"  # type: ignore[union-attr]
    started, finished = ledger.records
    assert (started.session_id, started.run_id, started.tool_call_id) == ("s", "r", "c1")
    assert (started.name, started.arguments, started.status) == ("echo", {"a": 1}, "started")
    assert started.result is None and started.finished_at is None
    assert (finished.status, finished.reason, finished.result) == ("finished", None, result)
    assert isinstance(finished.started_at, datetime) and isinstance(finished.finished_at, datetime)


def test_a_ledger_row_built_by_the_reporter_equals_one_built_by_keyword() -> None:
    ledger = InMemoryRunLedger()
    report = CallReporter("s", "r", None, ledger, None)
    call = ToolCall(id="c", name="n", arguments={})
    result = ToolResult(tool_call_id="c", name="n")
    report.record(call, "blocked", reason="tool_denied", result=result)
    (row,) = ledger.records
    expected = ToolCallRecord(
        id=row.id, session_id="s", run_id="r", tool_call_id="c", name="n", arguments={},
        status="blocked", reason="tool_denied", result=result, started_at=row.started_at,
        finished_at=row.finished_at,
    )  # fmt: skip
    assert row == expected
    assert row.started_at.tzinfo is UTC


@fast_init
@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Fast:
    a: int
    b: str = "x"
    c: tuple[int, ...] = dataclasses.field(default_factory=tuple)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Plain:
    a: int
    b: str = "x"
    c: tuple[int, ...] = dataclasses.field(default_factory=tuple)


def test_fast_init_matches_the_generated_init() -> None:
    def shape(cls: type) -> list[tuple[str, object]]:
        return [(p.name, p.kind) for p in inspect.signature(cls).parameters.values()]

    assert shape(_Fast) == shape(_Plain)
    for kwargs in ({"a": 1}, {"a": 1, "b": "y"}, {"a": 1, "c": (2,)}):
        assert dataclasses.astuple(_Fast(**kwargs)) == dataclasses.astuple(_Plain(**kwargs))
    with pytest.raises(TypeError):
        _Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast(1)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Fast(a=1).a = 2  # type: ignore[misc]


def test_fast_init_refuses_what_it_cannot_reproduce() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="__post_init__"):
        fast_init(Checked)
    with pytest.raises(TypeError, match="slotted dataclass"):
        fast_init(dict)
