"""The Prism side of the dispatch benchmark: every ``prism`` import it needs, in one place, and
the timed subjects built from them (dispatch per call, agent runs, 64 x 20 ms batches).

Names that are moving between releases are found through the small tables below (newest home
first), so a rename is a one-line edit here.
"""

from __future__ import annotations

import functools
import importlib
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
from _common import Batch, time_async_calls

from prism.core import (
    AbortController,
    InMemoryRunLedger,
    JsonObject,
    MiddlewareRegistry,
    TextContent,
    ToolArgumentValidationResult,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    ToolValidator,
    create_static_permission_policy,
    create_tool_parameter_validator,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import LoopOptions, ModelResponse
from prism.core.events import AgentEvent
from prism.core.testing import ScriptedProvider

AGENT_HOMES = (("prism.core.agent", "Agent"),)
"""Where the agent class (or its factory) lives, newest first: the first importable one is used
by the agent benches and by the import bench's first-use statement."""

SCHEMA: JsonObject = {"type": "object", "properties": {}, "additionalProperties": False}
SLEEP = 0.02
BATCH = 64


@dataclass(frozen=True, slots=True)
class Plan:
    """How much to measure per section (each subject also gets one untimed warm-up batch)."""

    calls: int
    repeats: int
    loop_runs: int
    loop_repeats: int
    batch_repeats: int
    import_reps: int


FULL = Plan(calls=2000, repeats=15, loop_runs=10, loop_repeats=9, batch_repeats=9,
            import_reps=40)  # fmt: skip
QUICK = Plan(calls=300, repeats=3, loop_runs=3, loop_repeats=3, batch_repeats=2,
             import_reps=6)  # fmt: skip


class _RunResult(Protocol):
    finish_reason: str
    messages: Collection[object]


class _Agent(Protocol):
    async def run(self, prompt: str, *, emit: Any = None) -> _RunResult: ...


def agent_home() -> tuple[str, str]:
    """(module, name) of the first importable entry of ``AGENT_HOMES``."""
    for module, name in AGENT_HOMES:
        try:
            if hasattr(importlib.import_module(module), name):
                return module, name
        except ImportError:
            continue
    raise SystemExit(f"no agent found at any of {AGENT_HOMES}: update AGENT_HOMES")


def make_agent(
    script: tuple[ModelResponse, ...],
    tool: ToolDefinition,
    concurrency: int,
    gates: ToolGates | None = None,
) -> _Agent:
    """An agent (from its current home) over a scripted model, one tool and optional gates."""
    module, name = agent_home()
    build = getattr(importlib.import_module(module), name)
    agent: _Agent = build(
        provider=ScriptedProvider(script), model="scripted", tools=[tool],
        loop=LoopOptions(tool_concurrency=concurrency), gates=gates,
    )  # fmt: skip
    return agent


def json_schema_validator() -> ToolValidator:
    """The real JSON Schema validator from ``prism.jsonschema`` as the dispatch ``validator``:
    the factory when it exists, else the validator class behind the generic seam."""
    jsonschema = importlib.import_module("prism.jsonschema")
    factory = getattr(jsonschema, "create_json_schema_tool_argument_validator", None)
    if factory is not None:
        validator: ToolValidator = factory()
        return validator
    return create_tool_parameter_validator(jsonschema.JsonSchemaArgumentValidator())


async def prism_noop(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
    """The no-op tool: an empty result."""
    return ToolResult(tool_call_id=context.tool_call_id, name="noop")


async def prism_sleep(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
    """A 20 ms I/O-bound tool (anyio sleep: the same handler runs on asyncio and trio)."""
    await anyio.sleep(SLEEP)
    return ToolResult(tool_call_id=context.tool_call_id, name="sleep20")


NOOP = ToolDefinition(name="noop", execute=prism_noop, parameters=SCHEMA)
SLEEP20 = ToolDefinition(name="sleep20", execute=prism_sleep, parameters=SCHEMA)
CALL = ToolCall(id="call_1", name="noop", arguments={})
GATES = ("context", "tool_filter", "permission", "middleware", "emit", "ledger")


class AcceptObjects:
    """A stub ``ToolArgumentValidator`` that accepts everything: isolates the seam's cost."""

    ok = ToolArgumentValidationResult(ok=True)

    def validate(self, schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        return self.ok


def stub_validator() -> ToolValidator:
    """The validator seam with the accept-all stub behind it."""
    return create_tool_parameter_validator(AcceptObjects())


class Gates:
    """The full pipeline: a run context, a filter and a static permission policy (exact names
    and globs), a pass-through ``tool_call`` and ``tool_result`` middleware, an emit sink and an
    ``InMemoryRunLedger``. Build one per timed batch so the sink and ledger start empty."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.ledger = InMemoryRunLedger()
        self.middleware = MiddlewareRegistry()
        self.middleware.use("tool_call", lambda call: call)
        self.middleware.use("tool_result", lambda result: result)
        self.context = ToolExecutionContext(
            session_id="bench", run_id="run-1", tool_call_id="", signal=AbortController().signal
        )
        self.tool_filter = ToolFilter(allow=("noop", "sleep20", "mcp:docs:*"), deny=("shell*",))
        self.permission = create_static_permission_policy(
            allow=("tool:*:execute",), deny=("tool:shell:*", "tool:rm:*")
        )

    def tool_gates(
        self, which: Collection[str] = GATES, validator: ToolValidator | None = None
    ) -> ToolGates:
        """The ``ToolGates`` of the gates named in ``which``, with ``validator``."""
        every: dict[str, Any] = {
            "tool_filter": self.tool_filter,
            "permission": self.permission,
            "middleware": self.middleware,
            "ledger": self.ledger,
        }
        return ToolGates(validator=validator, **{n: v for n, v in every.items() if n in which})

    def options(
        self, which: Collection[str] = GATES, validator: ToolValidator | None = None
    ) -> dict[str, Any]:
        """``dispatch_tool_call`` keyword arguments for the gates named in ``which``."""
        kw: dict[str, Any] = {"gates": self.tool_gates(which, validator)}
        if "context" in which:
            kw["context"] = self.context
        if "emit" in which:
            kw["emit"] = self.events.append
        return kw


def _check_gates_ran(gates: Gates, which: Collection[str]) -> None:
    """The gates really ran: started + finished ledger rows and events."""
    if "ledger" in which:
        assert [r.status for r in gates.ledger.records] == ["started", "finished"]
    if "emit" in which:
        kinds = [e.type for e in gates.events]
        assert kinds == ["tool_execution_started", "tool_execution_finished"], kinds


def prism_subject(
    plan: Plan, which: Collection[str], validator: ToolValidator | None, *, held: bool = False
) -> Batch:
    """Timed batches of ``dispatch_tool_call`` through the gates in ``which`` (its keyword
    settings checked on every call), or with ``held`` of ``ToolPipeline.dispatch`` (the same
    gates held and checked once, as an integration holds them; the context passed per call)."""
    registry = ToolRegistry([NOOP])

    async def batch() -> float:
        gates = Gates()
        kw: dict[str, Any] = {"registry": registry, **gates.options(which, validator)}
        one = held_call(kw) if held else (lambda: dispatch_tool_call(CALL, **kw))
        result = await one()
        assert not result.is_error, result
        _check_gates_ran(gates, which)
        return await time_async_calls(one, plan.calls)

    return batch


def held_call(kw: dict[str, Any]) -> Callable[[], Awaitable[ToolResult]]:
    """``dispatch_tool_call``'s keyword settings as a held ``ToolPipeline``, one call of it."""
    pipeline = ToolPipeline(registry=kw["registry"], gates=kw["gates"], emit=kw.get("emit"))
    return functools.partial(pipeline.dispatch, CALL, kw.get("context"))


def full_pipeline_call() -> Callable[[], Awaitable[ToolResult]]:
    """One judged-row call of the no-op tool through every gate (for the profile)."""
    return held_call({"registry": ToolRegistry([NOOP]), **Gates().options()})


def prism_loop_subject(k: int, concurrency: int, gated: bool, runs: int) -> Batch:
    """Mean seconds per agent run whose scripted model asks for ``k`` calls in one turn."""
    calls = tuple(ToolCall(id=f"call_{i}", name="noop", arguments={}) for i in range(k))
    script = (ModelResponse(tool_calls=calls), ModelResponse(content=(TextContent(text="done"),)))

    async def batch() -> float:
        total = 0.0
        for _ in range(runs):
            gates = Gates()
            extra = gates.tool_gates(("tool_filter", "permission", "middleware", "ledger"))
            agent = make_agent(script, NOOP, concurrency, extra if gated else None)
            start = time.perf_counter()
            result = await agent.run("go", emit=gates.events.append if gated else None)
            total += time.perf_counter() - start
            assert result.finish_reason == "stop" and len(result.messages) == k + 3, result
        return total / runs

    return batch


def raw_subject(limit: int) -> Batch:
    """The floor: an anyio task group running the same 64 sleeps behind a semaphore."""

    async def batch() -> float:
        semaphore = anyio.Semaphore(limit)

        async def one() -> None:
            async with semaphore:
                await anyio.sleep(SLEEP)

        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(BATCH):
                group.start_soon(one)
        return time.perf_counter() - start

    return batch


def prism_batch_subject(concurrency: int, gated: bool) -> Batch:
    """Seconds for 64 x 20 ms calls through ``dispatch_tool_calls_in_order``."""
    registry = ToolRegistry([SLEEP20])
    calls = [ToolCall(id=f"call_{i}", name="sleep20", arguments={}) for i in range(BATCH)]

    async def batch() -> float:
        kw = Gates().options() if gated else {}
        start = time.perf_counter()
        results = await dispatch_tool_calls_in_order(
            calls, tool_concurrency=concurrency, registry=registry, **kw
        )
        elapsed = time.perf_counter() - start
        assert len(results) == BATCH and not any(r.is_error for r in results)
        return elapsed

    return batch


def prism_agent_batch_subject() -> Batch:
    """Seconds for a whole agent run whose one turn asks for 64 x 20 ms calls."""
    calls = tuple(ToolCall(id=f"call_{i}", name="sleep20", arguments={}) for i in range(BATCH))
    script = (ModelResponse(tool_calls=calls), ModelResponse())

    async def batch() -> float:
        agent = make_agent(script, SLEEP20, BATCH)
        start = time.perf_counter()
        assert (await agent.run("go")).finish_reason == "stop"
        return time.perf_counter() - start

    return batch
