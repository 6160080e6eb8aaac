"""Red team: one ``ToolGates`` shared by tenants that each bring their own registry and sink.

Dispatch holds what it unpacks from a ``ToolGates`` on the gates and reuses it while the same
registry and sink come with them. However tenants pass and interleave calls (tasks, threads, both
backends, every entry point), each call must answer from its own registry, report to its own
sink and its gates' ledger, and leave the next call as fresh gates would."""

from __future__ import annotations

import copy
import dataclasses
import functools
import gc
import pickle
import sys
import threading
import types
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    MiddlewareRegistry,
    SecretRedactor,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import Agent, ModelRequest, ModelResponse, RunOptions, ToolMessage
from prism.core.events import AgentEvent
from prism.core.lowlevel import prepare_call, sleep
from prism.core.testing import scaled


def _registry(label: str, cls: type[ToolRegistry] = ToolRegistry) -> ToolRegistry:
    """``which`` (async, yields once) and ``sync`` (plain def, a worker thread) answer ``label``."""

    async def which(arguments: Any, context: ToolExecutionContext) -> str:
        await sleep(0)
        return label + context.session_id  # no session unless the caller gave a context

    sync = ToolDefinition(name="sync", execute=lambda arguments, context: label)
    return cls([ToolDefinition(name="which", execute=which), sync])


def _text(result: ToolResult) -> str:
    text = "".join(p.text for p in result.content if isinstance(p, TextContent))
    return text or f"!{result.error and result.error.code}"


def _call(call_id: str, name: str = "which") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments={})


async def _via(entry: str, call: ToolCall, registry: Any, gates: ToolGates, emit: Any) -> str:
    """One call through one of the entry points that take a ``ToolGates``."""
    if entry == "keyword":
        return _text(await dispatch_tool_call(call, registry=registry, gates=gates, emit=emit))
    if entry == "batch":
        (result,) = await dispatch_tool_calls_in_order(
            [call], registry=registry, gates=gates, emit=emit
        )
        return _text(result)
    if entry == "pipeline":
        return _text(await ToolPipeline(registry=registry, gates=gates, emit=emit).dispatch(call))
    return _text(await prepare_call(call, registry=registry, gates=gates, emit=emit).run())


async def _send(call_id: str, registry: Any, gates: ToolGates, emit: Any = None) -> str:
    return await _via("keyword", _call(call_id), registry, gates, emit)


async def _later(value: object) -> object:
    return value


class _Hostile:
    """Equal to every object, one hash for all: only identity tells two apart."""

    def __init__(self, verdict: Any = None) -> None:
        self.ids: list[str] = []
        self.others: list[str] = []
        self.sessions: set[str] = set()
        self.verdict = verdict

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def record(self, event: AgentEvent) -> None:
        self.ids.append(event.call.id)
        self.sessions.add(event.session_id)

    def boom(self, event: AgentEvent) -> None:
        raise RuntimeError("this tenant's sink is down")

    def other(self, event: AgentEvent) -> None:
        self.others.append(event.call.id)

    async def arecord(self, event: AgentEvent) -> None:
        await sleep(0)
        self.record(event)

    def __call__(self, *args: Any) -> Any:
        """As a sink, a ``MethodType`` body ``(owner, event)`` or a validator (its verdict)."""
        if len(args) == 3:
            return self.verdict
        return self.record(args[-1])

    def check(self, request: object) -> Any:  # a permission policy
        return self.verdict

    def get(self, name: str) -> ToolDefinition | None:  # a registry
        return self.verdict.get(name)  # type: ignore[no-any-return]

    def append(self, record: Any) -> None:  # a ledger
        self.ids.append(record.tool_call_id)


@pytest.mark.anyio
async def test_look_alike_sinks_each_get_exactly_their_own_events() -> None:
    """Bound methods of objects equal to all, a forged bound method, partials, classmethods of a
    class and its subclass, two methods or two equal bodies on one object."""
    a, b, c, d, same, f1, f2, p1, p2 = (_Hostile() for _ in range(9))

    class Base:
        ids: ClassVar[list[str]] = []

        @classmethod
        def record(cls, event: AgentEvent) -> None:
            cls.ids.append(event.call.id)

    class Sub(Base):
        ids: ClassVar[list[str]] = []

    class Forged(_Hostile):
        """Claims to be ``a.record``: its class, ``__self__`` and ``__func__`` are forged."""

        __class__ = types.MethodType  # type: ignore[assignment]
        __self__, __func__ = a, _Hostile.record

    forged = Forged()
    sinks: list[tuple[Callable[[], Any], list[str]]] = [
        (lambda: a.record, a.ids),
        (lambda: b.record, b.ids),
        (lambda: forged, forged.ids),
        (lambda: c, c.ids),
        (lambda: d.arecord, d.ids),
        (lambda: same.other, same.others),
        (lambda: functools.partial(_Hostile.record, p1), p1.ids),
        (lambda: functools.partial(_Hostile.record, p2), p2.ids),
        (lambda: Base.record, Base.ids),
        (lambda: Sub.record, Sub.ids),
        (lambda: types.MethodType(f1, same), f1.ids),
        (lambda: types.MethodType(f2, same), f2.ids),
    ]
    gates, registry = ToolGates(), _registry("r")
    with anyio.fail_after(scaled(10)):
        for round_ in range(3):
            for k, (make, _) in enumerate(sinks):
                assert await _send(f"{k}-{round_}", registry, gates, make()) == "r"
    for k, (_, ids) in enumerate(sinks):
        assert ids == [f"{k}-{r}" for r in range(3) for _ in range(2)], k


@pytest.mark.anyio
async def test_look_alike_registries_answer_their_own_calls_and_changes_are_seen() -> None:
    """Lookups equal to every other answer their own calls; a registry or middleware changed
    after a call (a tool replaced by a sync one, removed, calls renamed) binds the next call."""
    gates, lookups = (
        ToolGates(middleware=MiddlewareRegistry()),
        [_Hostile(_registry(x)) for x in "ab"],
    )
    mutable = _registry("m")
    with anyio.fail_after(scaled(10)):
        assert [await _send(str(n), lookups[n % 2], gates) for n in range(4)] == list("abab")
        assert await _send("1", mutable, gates) == "m"
        mutable.register(ToolDefinition(name="which", execute=lambda args, ctx: "sync now"))
        assert await _send("2", mutable, gates) == "sync now"
        mutable.unregister("which")
        assert await _send("3", mutable, gates) == "!unknown_tool"
        assert await _send("4", lookups[0], gates) == "a"
        assert gates.middleware is not None
        gates.middleware.use("tool_call", lambda call: _call(call.id, "sync"))
        assert await _send("5", lookups[0], gates) == "a"  # now by its plain-def tool
        gates.middleware.use("tool_call", lambda call: _call(call.id, "gone"))
        assert await _send("6", lookups[0], gates) == "!unknown_tool"
        stop = AbortController()
        stop.abort("tenant A pressed stop")
        for signal, wanted in ((stop.signal, "!aborted"), (None, "b")):  # one batch's signal only
            (got,) = await dispatch_tool_calls_in_order(
                [_call("7")], signal=signal, registry=lookups[1], gates=ToolGates()
            )
            assert _text(got) == wanted


@pytest.mark.anyio
async def test_equal_gates_apply_their_own_gates_and_each_call_its_own_context() -> None:
    """``ToolGates`` that compare and hash equal (each gate equal to every other), one registry,
    one sink: each call is gated and recorded by its own gates; calls on the same gates,
    registry and sink keep their own context; a sink that raises changes nothing after it; a
    policy answering now directly, now through an awaitable, is asked anew every call."""
    pairs = [
        (ToolGates(permission=_Hostile(True)), ToolGates(permission=_Hostile(False))),
        (ToolGates(validator=_Hostile(None)), ToolGates(validator=_Hostile("no"))),
    ]
    registry, sink, ledgers = _registry("ran"), _Hostile(), (_Hostile(), _Hostile())
    with anyio.fail_after(scaled(10)):
        for allowing, refusing in pairs * 2:
            assert allowing == refusing and hash(allowing) == hash(refusing)
            assert await _send("y", registry, allowing, sink) == "ran"
            refused = await _send("n", registry, refusing, sink)
            assert refused in ("!permission_denied", "!validation_failed")
        for n in range(4):
            await _send(str(n), registry, ToolGates(ledger=ledgers[n % 2]), sink)
        for tenant in ("t1", "t2", "t1"):
            signal = AbortController().signal
            context = ToolExecutionContext(
                session_id=tenant, run_id=tenant, tool_call_id=tenant, signal=signal
            )
            got = await dispatch_tool_call(
                _call(tenant), registry=registry, gates=pairs[0][0], context=context, emit=sink
            )
            assert _text(got) == f"ran{tenant}"
        for emit in (sink.boom, sink.arecord, sink.boom, sink):
            assert await _send("z", registry, pairs[0][0], emit) == "ran"
        policy = _Hostile()
        flipping = ToolGates(permission=policy)  # one policy answering sync, then async, ...
        for n, answer in enumerate((True, False, True, True, False)):
            policy.verdict = _later(answer) if n % 2 else answer
            wanted = "ran" if answer else "!permission_denied"
            assert await _send("v", registry, flipping, None) == wanted
    assert (ledgers[0].ids, ledgers[1].ids) == (["0", "0", "2", "2"], ["1", "1", "3", "3"])
    assert sink.ids[-10:] == ["t1", "t1", "t2", "t2", "t1", "t1", *["z"] * 4]
    assert sink.sessions == {"", "t1", "t2"}


async def _run_plan(plan: list[tuple[int, str, str, int]]) -> tuple[list[Any], list[Any]]:
    registries, sinks = [_registry(f"t{t}") for t in range(3)], [_Hostile() for _ in range(3)]
    ledgers = [InMemoryRunLedger(), InMemoryRunLedger()]
    gates = [ToolGates(ledger=ledger) for ledger in ledgers]

    async def one(n: int, t: int, entry: str, kind: str, g: int) -> None:
        emit = {"object": sinks[t], "bound": sinks[t].record, "async": sinks[t].arecord}
        got = await _via(entry, _call(f"{t}.{n}"), registries[t], gates[g], emit.get(kind))
        assert got == f"t{t}"

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as tasks:
            for n, step in enumerate(plan):
                tasks.start_soon(one, n, *step)
    return sinks, ledgers


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2),  # the tenant: its registry and its sink object
            st.sampled_from(["keyword", "batch", "pipeline", "prepared"]),
            st.sampled_from(["object", "bound", "async", "none"]),
            st.integers(0, 1),  # which of two shared gates
        ),
        min_size=1,
        max_size=16,
    )
)
def test_concurrent_tenants_on_every_entry_point_never_cross(
    backend: str, plan: list[tuple[int, str, str, int]]
) -> None:
    """Every planned call runs as its own task, all at once."""
    sinks, ledgers = anyio.run(_run_plan, plan, backend=backend)
    for t, sink in enumerate(sinks):
        ids = [f"{u}.{n}" for n, (u, _, kind, _) in enumerate(plan) if u == t and kind != "none"]
        assert Counter(sink.ids) == Counter(ids * 2)
    for g, ledger in enumerate(ledgers):
        rows = Counter(row.tool_call_id for row in ledger.records)
        assert rows == Counter({f"{u}.{n}": 2 for n, (u, _, _, h) in enumerate(plan) if h == g})


@pytest.mark.anyio
async def test_dispatch_from_inside_a_handler_sink_or_step_hook_leaves_the_outer_call_routed() -> (
    None
):
    """An inner call (registry B, sink B) swaps what the gates hold while the outer call (A) is
    half way through: the outer call still finishes on A, reporting to A."""
    ledger, inner_registry, inner_sink = InMemoryRunLedger(), _registry("B"), _Hostile()
    gates = ToolGates(ledger=ledger)

    async def inner(call_id: str) -> str:
        return await _send(call_id, inner_registry, gates, inner_sink)

    async def outer_tool(arguments: Any, context: ToolExecutionContext) -> str:
        return "A(" + await inner("in-handler") + ")"

    outer_registry, outer_ids = ToolRegistry([ToolDefinition(name="which", execute=outer_tool)]), []

    async def outer_sink(event: AgentEvent) -> None:
        if event.type == "tool_execution_started":
            await inner(f"in-sink-{event.call.id}")
        outer_ids.append(event.call.id)

    class Hook:  # a step hook, and the steps of its one batch
        async def open_batch(self, calls: Any) -> Hook:
            await inner("in-open")
            return self

        async def run(self, unit: Any) -> ToolResult:
            await inner(f"in-step-{unit.index}")
            return await unit.run()  # type: ignore[no-any-return]

    with anyio.fail_after(scaled(10)):
        single = await _send("o", outer_registry, gates, outer_sink)
        batch = await dispatch_tool_calls_in_order(
            [_call("o0"), _call("o1")], registry=outer_registry, gates=gates, emit=outer_sink,
            step_hook=Hook(), tool_concurrency=2,
        )  # fmt: skip
    assert [single, *map(_text, batch)] == ["A(B)"] * 3
    assert Counter(outer_ids) == Counter(["o", "o0", "o1"] * 2)
    inner_ids = ["in-handler"] * 3 + ["in-sink-o", "in-sink-o0", "in-sink-o1", "in-open"]
    inner_ids += ["in-step-0", "in-step-1"]
    assert Counter(inner_sink.ids) == Counter(inner_ids * 2)
    assert Counter(r.tool_call_id for r in ledger.records) == Counter([*inner_ids * 2, *outer_ids])


class _Model:
    """A model that asks for one call named after the prompt, then answers."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        await sleep(0)
        if any(m.role == "tool" for m in request.messages):
            return ModelResponse(content=(TextContent(text="done"),))
        call = ToolCall(
            id=str(getattr(request.messages[0], "content", "")), name="which", arguments={}
        )
        return ModelResponse(tool_calls=(call,))


@pytest.mark.anyio
async def test_concurrent_agent_runs_on_shared_gates_keep_their_validator_tools_and_sink() -> None:
    """Runs of two agents (their own tools) on one ``ToolGates``, half with a per-run validator
    that refuses, all at once: each run gated by its own options and reported to its sink."""
    gates = ToolGates(ledger=InMemoryRunLedger())
    agents = [
        Agent(
            provider=_Model(), model="m", tools=_registry(f"t{a}/"), gates=gates, session_id=f"s{a}"
        )
        for a in (0, 1)
    ]
    sinks, outcomes = [_Hostile() for _ in range(16)], {}

    async def run(n: int) -> None:
        options = RunOptions(validator=_Hostile("refused") if n % 2 else None)
        done = await agents[n % 4 // 2].run(f"p{n}", options=options, emit=sinks[n].record)
        outcomes[n] = [_text(m.result) for m in done.messages if isinstance(m, ToolMessage)]

    with anyio.fail_after(scaled(10)):
        async with anyio.create_task_group() as tasks:
            for n in range(16):
                tasks.start_soon(run, n)
    agent_of = [n % 4 // 2 for n in range(16)]
    refused = ["!validation_failed"]
    assert outcomes == {n: refused if n % 2 else [f"t{a}/s{a}"] for n, a in enumerate(agent_of)}
    assert all(sink.sessions == {f"s{a}"} for sink, a in zip(sinks, agent_of, strict=True))
    assert all(set(sink.ids) == {f"p{n}"} for n, sink in enumerate(sinks))


def test_threads_each_with_its_own_loop_and_tenants_never_cross() -> None:
    """Four threads, each on its own loop, alternate two registries and two sinks per call
    through one ``ToolGates`` (redacting), the interpreter switching threads as often as it can.
    An asyncio thread and a trio thread share each pair, so what one backend's call left held
    is met by the other's; every fifth call is a plain-``def`` tool (a worker thread)."""
    ledger, errors, per_thread = InMemoryRunLedger(), list[tuple[object, ...]](), 1000
    gates = ToolGates(ledger=ledger, redactor=SecretRedactor(["s3cret"]))
    pairs = [([_registry(f"{p}.{k}") for k in (0, 1)], [_Hostile(), _Hostile()]) for p in (0, 1)]

    def worker(t: int) -> None:
        registries, sinks = pairs[t // 2]

        async def run() -> None:
            for n in range(per_thread):
                k, emit = n % 2, sinks[n % 2] if n % 3 else sinks[n % 2].record
                call = _call(f"{t}.{k}.{n}", "sync" if n % 5 == 0 else "which")
                got = await dispatch_tool_call(call, registry=registries[k], gates=gates, emit=emit)
                if _text(got) != f"{t // 2}.{k}":
                    errors.append((t, n, _text(got)))

        try:
            anyio.run(run, backend=("asyncio", "trio")[t % 2])
        except BaseException as exc:
            errors.append((t, repr(exc)))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(scaled(30))
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    for p, (_, sinks) in enumerate(pairs):
        for k, sink in enumerate(sinks):
            ids = [f"{t}.{k}.{n}" for t in (2 * p, 2 * p + 1) for n in range(k, per_thread, 2)]
            assert Counter(sink.ids) == Counter(ids * 2)
    assert len(ledger.records) == 4 * per_thread * 2


class _WeakRegistry(ToolRegistry):
    """A registry a weak reference can watch."""


@pytest.mark.anyio
async def test_dropped_registries_and_sinks_are_freed_and_their_ids_never_answer() -> None:
    """Each round builds a registry and a sink, calls once and drops them, so CPython reuses
    their ids: every call still answers from its own, and the gates keep only the last pair."""
    gates, watched = ToolGates(), []

    async def one_round(n: int) -> None:
        registry, sink = _registry(f"gen{n}", _WeakRegistry), _Hostile()
        watched.append((weakref.ref(registry), weakref.ref(sink)))
        got = await _send(str(n), registry, gates, sink.record)
        assert (got, sink.ids) == (f"gen{n}", [str(n)] * 2)

    with anyio.fail_after(scaled(10)):
        for n in range(200):
            await one_round(n)
    gc.collect()
    assert [n for n, (registry, sink) in enumerate(watched) if registry() or sink()] in ([], [199])


def test_a_long_lived_gates_stays_small_whatever_tool_names_come_through() -> None:
    """A lookup answering any name (a proxy), under a filter and a static policy that remember
    verdicts per name: 80,000 distinct long names, and the second 40,000 leave no more behind
    than the first (remembering every name would grow linearly)."""

    handler = _registry("ok").resolve("which").execute

    class AnyName:
        def get(self, name: str) -> ToolDefinition:
            return ToolDefinition(name=name, execute=handler)

    gates = ToolGates(
        tool_filter=ToolFilter(deny=["nothing*"]),
        permission=create_static_permission_policy(deny=["tool:nothing*:*"]),
    )

    async def calls(first: int) -> None:
        with anyio.fail_after(scaled(20)):
            for n in range(first, first + 5_000):
                await _via("keyword", _call("x", f"t{n:0120d}"), AnyName(), gates, None)

    anyio.run(calls, -5_000)
    gc.collect()
    base, grown = sys.getallocatedblocks(), []
    for chunk in range(16):
        anyio.run(calls, chunk * 5_000)
        gc.collect()
        grown.append(sys.getallocatedblocks() - base)
    assert max(grown[8:]) <= max(grown[:8]) * 1.5 + 2_000, grown


@pytest.mark.anyio
async def test_copies_and_replacements_of_a_used_gates_route_by_their_own_calls() -> None:
    """``copy.copy`` and ``dataclasses.replace`` of a used ``ToolGates`` subclass; ``==``, ``hash``
    and ``repr`` are what they were before any call."""

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class TenantGates(ToolGates):  # a host's subclass with a field of its own
        tenant: str = "a"

    ledger, other_ledger = InMemoryRunLedger(), InMemoryRunLedger()
    gates = TenantGates(ledger=ledger)
    before = (repr(gates), hash(gates))
    a, b, sink_a, sink_b = _registry("a"), _registry("b"), _Hostile(), _Hostile()
    with anyio.fail_after(scaled(10)):
        assert await _send("a1", a, gates, sink_a) == "a"
        copied, replaced = (
            copy.copy(gates),
            dataclasses.replace(gates, ledger=other_ledger, tenant="b"),
        )
        assert await _send("b1", b, copied, sink_b) == "b"
        assert await _send("a2", a, gates, sink_a) == "a"
        assert await _send("a3", a, replaced, sink_a) == "a"
        assert await _send("b2", b, copied, sink_b) == "b"
    assert Counter(sink_a.ids) + Counter(sink_b.ids) == Counter(["a1", "b1", "a2", "a3", "b2"] * 2)
    assert (set(sink_b.ids), [r.tool_call_id for r in other_ledger.records]) == (
        {"b1", "b2"},
        ["a3"] * 2,
    )
    assert len(ledger.records) == 8
    assert (repr(gates), hash(gates)) == before and gates == copied == TenantGates(ledger=ledger)


@dataclasses.dataclass
class _Tenant:
    """A picklable tenant registry (without tools) and sink, holding a secret of the tenant's."""

    secret: str

    def get(self, name: str) -> None:
        return None

    def __call__(self, event: AgentEvent) -> None:
        pass


_COPIES: dict[str, Callable[[ToolGates], object]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda gates: pickle.loads(pickle.dumps(gates)),
    "asdict": dataclasses.asdict,
    "astuple": dataclasses.astuple,
}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("how", sorted(_COPIES))
def test_a_used_gates_copies_and_serializes_like_an_unused_one(how: str, backend: str) -> None:
    gates = ToolGates(max_argument_bytes=4096)  # no ledger: its records are not picklable
    _COPIES[how](gates)  # fine before any call
    assert anyio.run(_send, "1", _registry("a"), gates, backend=backend) == "a"
    _COPIES[how](gates)  # the held registry (a tool's metadata) is not copied along


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_serialized_shared_gates_carry_nothing_of_the_last_tenant(backend: str) -> None:
    gates = ToolGates()
    registry, sink = _Tenant("tenant-a-registry-secret"), _Tenant("tenant-a-sink-secret")
    assert anyio.run(_send, "1", registry, gates, sink, backend=backend) == "!unknown_tool"
    blob = pickle.dumps(gates)  # the gates alone, as a host would ship its configuration
    assert b"tenant-a-registry-secret" not in blob
    assert b"tenant-a-sink-secret" not in blob


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_registry_that_lost_get_is_refused_as_on_fresh_gates(backend: str) -> None:
    class Lookup:
        def __init__(self) -> None:
            self.get = _registry("a").get

    fresh, used, registry = ToolGates(), ToolGates(), Lookup()
    assert anyio.run(_send, "1", registry, used, backend=backend) == "a"
    del registry.get
    with pytest.raises(TypeError, match=r"^dispatch\.registry must be a ToolLookup"):
        anyio.run(_send, "2", registry, fresh, backend=backend)
    with pytest.raises(TypeError, match=r"^dispatch\.registry must be a ToolLookup"):
        anyio.run(_send, "3", registry, used, backend=backend)
