"""Anything inside a ToolCall becomes a blocked result: dispatch and batch dispatch never raise."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core import (
    InMemoryRunLedger,
    SecretRedactor,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core._arguments import MAX_ARGUMENT_INTEGER_BITS, check_json_object
from prism.core._backend import current_backend
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


class Boom(Exception):
    """What every hostile object raises."""


class BadRepr:
    """Hashable and comparable, but ``repr``/``str`` raise."""

    def __repr__(self) -> str:
        raise Boom("repr")

    __str__ = __repr__


class BadHash:
    """Raises as soon as anything hashes it (a registry lookup, a set)."""

    def __hash__(self) -> int:
        raise Boom("hash")

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")


class ItemsRaise(dict[str, Any]):
    def items(self) -> Any:
        raise Boom("items")

    def __iter__(self) -> Any:
        raise Boom("iter")


class LenRaise(dict[str, Any]):
    def __len__(self) -> int:
        raise Boom("len")


class ListIterRaise(list[Any]):
    def __iter__(self) -> Any:
        raise Boom("iter")


class StrLenRaise(str):
    def __len__(self) -> int:
        raise Boom("len")


class FloatReprRaise(float):
    def __repr__(self) -> str:
        raise Boom("repr")


class IntBitsRaise(int):
    def bit_length(self) -> int:
        raise Boom("bit_length")


HOSTILE_ARGUMENTS: list[Any] = [
    {BadRepr(): 1},
    {10**5000: 1},
    ItemsRaise(a=1),
    LenRaise(a=1),
    {"a": ListIterRaise([1])},
    {"a": [{"b": ItemsRaise(c=1)}]},
    {"a": BadRepr()},
    {"a": 10**5000},
    {"a": -(10**700)},
    ItemsRaise(),
]

hostile_leaf = st.one_of(
    st.builds(BadRepr),
    st.sampled_from([1, -1]).map(lambda sign: sign * 10**5000),
    st.builds(StrLenRaise, st.just("s")),
    st.builds(FloatReprRaise, st.just(2.5)),
    st.builds(IntBitsRaise, st.just(1)),
)
hostile_container = st.one_of(
    st.builds(ItemsRaise, a=st.just(1)),
    st.builds(LenRaise, a=st.just(1)),
    st.builds(ListIterRaise, st.just([1])),
)
json_leaf = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=6)
values = st.recursive(
    json_leaf | hostile_leaf | hostile_container,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=4) | hostile_leaf, children, max_size=3)
    ),
    max_leaves=8,
)
arguments: st.SearchStrategy[Any] = (
    st.dictionaries(st.text(max_size=4) | hostile_leaf, values, max_size=4)
    | hostile_container
    | st.builds(BadRepr)
    | st.sampled_from([None, [], "text"])
)
texts = (
    st.text(max_size=4)
    | st.builds(BadRepr)
    | st.builds(BadHash)
    | st.builds(StrLenRaise, st.just("echo"))
    | st.just(7)
)


def _tool() -> ToolDefinition:
    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        return "ran"

    return ToolDefinition(name="echo", execute=execute)


def _events() -> tuple[list[object], Any]:
    seen: list[object] = []
    return seen, seen.append


def _options() -> dict[str, Any]:
    return {
        "registry": ToolRegistry([_tool()]),
        "emit": _events()[1],
        "gates": ToolGates(ledger=InMemoryRunLedger(), redactor=SecretRedactor(["hunter2"])),
    }


def _no_pending_cancellation() -> None:
    if current_backend() == "asyncio":
        task = asyncio.current_task()
        assert task is not None
        assert task.cancelling() == 0


@pytest.mark.parametrize("hostile", HOSTILE_ARGUMENTS, ids=range(len(HOSTILE_ARGUMENTS)))
async def test_hostile_arguments_are_blocked_not_raised(hostile: Any) -> None:
    call = ToolCall(id="c1", name="echo", arguments=hostile)
    result = await dispatch_tool_call(call, **_options())
    assert result.error is not None
    assert result.error.code == "invalid_arguments", result.error
    assert result.tool_call_id == "c1"


class LyingStr(str):
    """Claims to equal anything and to be empty; its real value is what it holds."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__

    def __len__(self) -> int:
        return 0


class LyingInt(int):
    def bit_length(self) -> int:
        return 1


DECODED: list[tuple[Any, Any]] = [  # subclasses are read for their real value, never trusted
    ({"a": StrLenRaise("x")}, {"a": "x"}),
    ({StrLenRaise("k"): 1}, {"k": 1}),
    ({"a": IntBitsRaise(3)}, {"a": 3}),
    ({"a": LyingStr("payload")}, {"a": "payload"}),
    ({"a": [LyingInt(7), FloatReprRaise(2.5)]}, {"a": [7, 2.5]}),
]


@pytest.mark.parametrize(("lying", "canonical"), DECODED, ids=range(len(DECODED)))
async def test_the_handler_receives_the_canonical_copy(lying: Any, canonical: Any) -> None:
    received: list[Any] = []

    async def execute(args: Any, ctx: ToolExecutionContext) -> str:
        received.append(args)
        return "ran"

    registry = ToolRegistry([ToolDefinition(name="echo", execute=execute)])
    call = ToolCall(id="c1", name="echo", arguments=lying)
    result = await dispatch_tool_call(call, registry=registry)
    assert result.error is None
    assert received == [canonical]
    assert _exact_types(received[0])


def _exact_types(value: Any) -> bool:
    if type(value) is dict:
        return all(type(k) is str and _exact_types(v) for k, v in value.items())
    if type(value) is list:
        return all(_exact_types(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


async def test_a_lying_proto_key_is_refused() -> None:
    class Proto(str):
        def __eq__(self, other: object) -> bool:
            return False

        __hash__ = str.__hash__

    call = ToolCall(id="c1", name="echo", arguments={Proto("__proto__"): {"admin": True}})
    result = await dispatch_tool_call(call, **_options())
    assert result.error is not None
    assert "__proto__" in result.error.message


async def test_a_shared_sub_object_dag_is_counted_not_unfolded() -> None:
    node: Any = {"leaf": 1}
    for _ in range(60):
        node = {"a": node, "b": node}  # 2**60 nodes once unfolded
    started = time.monotonic()
    result = await dispatch_tool_call(ToolCall(id="c1", name="echo", arguments=node), **_options())
    assert time.monotonic() - started < scaled(2.0)
    assert result.error is not None
    assert "exceed" in result.error.message


@pytest.mark.parametrize(
    ("call_id", "name"),
    [(BadRepr(), "echo"), ("c1", BadHash()), (StrLenRaise("c"), 3)],
    ids=["bad-repr-id", "unhashable-name", "str-subclass-id-int-name"],
)
async def test_hostile_id_or_name_is_blocked_not_raised(call_id: Any, name: Any) -> None:
    result = await dispatch_tool_call(ToolCall(id=call_id, name=name, arguments={}), **_options())
    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert type(result.tool_call_id) is str and type(result.name) is str


async def test_batch_keeps_every_result_next_to_hostile_calls() -> None:
    calls = [ToolCall(id="ok0", name="echo", arguments={})]
    for index, hostile in enumerate(HOSTILE_ARGUMENTS):
        calls.append(ToolCall(id=f"bad{index}", name="echo", arguments=hostile))
        calls.append(ToolCall(id=f"ok{index + 1}", name="echo", arguments={"i": index}))
    calls.append(ToolCall(id="badname", name=BadHash(), arguments={}))  # type: ignore[arg-type]
    results = await dispatch_tool_calls_in_order(calls, tool_concurrency=4, **_options())
    _no_pending_cancellation()
    assert len(results) == len(calls)
    for call, result in zip(calls, results, strict=True):
        assert isinstance(result, ToolResult)
        if str.startswith(call.id, "ok"):
            assert result.error is None and result.tool_call_id == call.id
        else:
            assert result.error is not None and result.error.code == "invalid_arguments"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batch=st.lists(st.tuples(texts, texts, arguments), min_size=1, max_size=5),
    concurrency=st.integers(1, 3),
)
async def test_batch_of_any_calls_returns_one_result_per_call(
    batch: list[tuple[Any, Any, Any]], concurrency: int
) -> None:
    calls = [ToolCall(id=i, name=n, arguments=a) for i, n, a in batch]
    results = await dispatch_tool_calls_in_order(calls, tool_concurrency=concurrency, **_options())
    _no_pending_cancellation()
    assert len(results) == len(calls)
    for result in results:
        assert isinstance(result, ToolResult)
        assert type(result.tool_call_id) is str and type(result.name) is str


def test_integer_size_is_bounded() -> None:
    limit = 2**MAX_ARGUMENT_INTEGER_BITS
    assert check_json_object({"n": limit - 1, "m": -(limit - 1), "k": 10**400}, 1 << 20) is None
    for huge in (limit, -limit, 10**4300, 10**5000):
        why = check_json_object({"a": [huge]}, 1 << 20)
        assert why is not None and "/a/0" in why and "integer" in why


@pytest.mark.parametrize(
    ("make", "limit"),
    [
        pytest.param(lambda: {"s": "é" * 20_000_000}, 1_048_576, id="one-huge-string"),
        # worst-case escapes, large in total: the check stops early
        pytest.param(lambda: {"s": ['\u2028"' * 300] * 20_000}, 100_000, id="many-small-strings"),
    ],
)
def test_size_check_peak_memory_stays_small(
    make: Callable[[], dict[str, object]], limit: int
) -> None:
    value = make()  # built per test, not held by the collected parameters
    tracemalloc.start()
    try:
        why = check_json_object(value, limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert why is not None and f"exceed {limit} bytes" in why
    assert peak < 1_000_000, peak
