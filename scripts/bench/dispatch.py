"""Core benchmark: Prism dispatch and agent loop side by side with pydantic-ai and openai-agents.

Run: ``uv run --group bench python scripts/bench/dispatch.py [--quick] [--profile]``.
Prints markdown tables (absolute figures and ratios, then the performance targets):
1. µs per call of ``dispatch_tool_call`` on an async no-op tool vs pydantic-ai
   ``ToolManager.handle_call`` and openai-agents ``FunctionTool.on_invoke_tool``;
2. agent-loop marginal cost per tool call, Prism ``Agent`` + ``ScriptedProvider`` vs
   pydantic-ai ``Agent.run`` + ``FunctionModel``;
3. 64 x 20 ms tools in one turn at concurrency 64 and 8, asyncio and trio, next to a raw
   anyio task group doing the same sleeps;
4. ``import prism.core`` vs ``import json`` in fresh interpreters.
``--profile`` adds a per-gate cost breakdown and a cProfile of the full pipeline.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

import anyio
from _common import (
    Target,
    fmt_ms,
    fmt_ratio,
    fmt_us,
    interleaved_async,
    machine_line,
    markdown_table,
    measure_imports,
    median,
    settle,
    targets_table,
    time_async_calls,
)
from agents import FunctionTool, RunContextWrapper, function_tool
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall
from pydantic_ai import Agent as PaiAgent
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart
from pydantic_ai.messages import ModelResponse as PaiResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tool_manager import ToolManager
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage

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
    ToolResult,
    ToolValidator,
    create_static_permission_policy,
    create_tool_parameter_validator,
    create_tool_registry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import Agent, LoopOptions, ModelResponse
from prism.core.events import AgentEvent
from prism.core.testing import ScriptedProvider

COMMAND = "uv run --group bench python scripts/bench/dispatch.py"
SCHEMA: JsonObject = {"type": "object", "properties": {}, "additionalProperties": False}
SLEEP = 0.02
BATCH = 64
K_SMALL, K_BIG = 1, 33
Batch = Callable[[], Awaitable[float]]
"""One timed batch of a subject; returns its figure (seconds per call, per run, per turn)."""


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


# --- Prism subjects ------------------------------------------------------------------------


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

    def options(self, which: Collection[str] = GATES) -> dict[str, Any]:
        """``dispatch_tool_call`` keyword arguments for the gates named in ``which``."""
        every = {
            "context": self.context,
            "tool_filter": self.tool_filter,
            "permission": self.permission,
            "middleware": self.middleware,
            "emit": self.events.append,
            "ledger": self.ledger,
        }
        return {name: value for name, value in every.items() if name in which}


def json_schema_validator() -> ToolValidator | None:
    """The real JSON Schema validator from ``prism.jsonschema``, once that package provides it."""
    try:
        from prism.jsonschema import (  # type: ignore[attr-defined, unused-ignore]
            create_json_schema_tool_argument_validator,
        )
    except ImportError:
        return None
    validator: ToolValidator = create_json_schema_tool_argument_validator()
    return validator


def prism_subject(plan: Plan, which: Collection[str], validate: ToolValidator | None) -> Batch:
    """Timed batches of ``dispatch_tool_call`` through the gates in ``which``."""
    registry = create_tool_registry([NOOP])

    async def batch() -> float:
        gates = Gates()
        kw: dict[str, Any] = {"registry": registry, **gates.options(which)}
        if validate is not None:
            kw["validate"] = validate
        result = await dispatch_tool_call(CALL, **kw)
        assert not result.is_error, result
        if "ledger" in which:  # the gates really ran: started + finished rows and events
            assert [r.status for r in gates.ledger.records] == ["started", "finished"]
        if "emit" in which:
            kinds = [e.type for e in gates.events]
            assert kinds == ["tool_execution_started", "tool_execution_finished"], kinds
        return await time_async_calls(lambda: dispatch_tool_call(CALL, **kw), plan.calls)

    return batch


# --- Peer subjects -------------------------------------------------------------------------


async def pai_noop() -> None:
    """The pydantic-ai no-op tool."""


async def pai_function_toolset_subject(plan: Plan) -> Batch:
    """pydantic-ai ``ToolManager`` over a ``FunctionToolset``, prepared by ``for_run_step``."""
    toolset: FunctionToolset[None] = FunctionToolset()
    toolset.add_function(pai_noop, name="noop")
    model = FunctionModel(lambda messages, info: PaiResponse(parts=[TextPart("done")]))
    ctx = RunContext(deps=None, model=model, usage=RunUsage(), run_step=1)
    manager = await ToolManager(toolset).for_run_step(ctx)
    call = ToolCallPart(tool_name="noop", args={}, tool_call_id="call_1")
    assert await manager.handle_call(call) is None

    async def batch() -> float:
        return await time_async_calls(lambda: manager.handle_call(call), plan.calls)

    return batch


def pai_agent_subject(plan: Plan) -> Batch:
    """The ``ToolManager`` a real ``Agent.run`` builds (default capabilities), timed mid-run.

    The model calls a ``probe`` tool that times ``ctx.tool_manager.handle_call`` on the no-op
    tool: the nested path pydantic-ai's own wrapper toolsets dispatch through.
    """
    seconds: list[float] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        if len(messages) == 1:
            return PaiResponse(parts=[ToolCallPart(tool_name="probe", args={}, tool_call_id="p")])
        return PaiResponse(parts=[TextPart("done")])

    agent: PaiAgent[None, str] = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="noop")(pai_noop)

    @agent.tool
    async def probe(ctx: RunContext[None]) -> str:
        manager = ctx.tool_manager
        assert manager is not None
        call = ToolCallPart(tool_name="noop", args={}, tool_call_id="call_1")
        assert await manager.handle_call(call) is None
        seconds.append(await time_async_calls(lambda: manager.handle_call(call), plan.calls))
        return "ok"

    async def batch() -> float:
        result = await agent.run("probe")
        assert result.output == "done"
        return seconds[-1]

    return batch


@function_tool
async def oa_noop() -> None:
    """No-op."""


def openai_agents_subject(plan: Plan, per_call_context: bool) -> Batch:
    """openai-agents ``FunctionTool.on_invoke_tool`` with a real ``ToolContext``: built once, or
    per call with ``ToolContext.from_agent_context`` as its runner does for every tool call."""
    tool: FunctionTool = oa_noop
    wrapper: RunContextWrapper[None] = RunContextWrapper(context=None)
    raw = ResponseFunctionToolCall(
        arguments="{}", call_id="call_1", name="oa_noop", type="function_call"
    )
    shared = ToolContext.from_agent_context(wrapper, "call_1", tool_call=raw)

    async def fresh() -> object:
        ctx = ToolContext.from_agent_context(wrapper, raw.call_id, tool_call=raw)
        return await tool.on_invoke_tool(ctx, raw.arguments)

    async def batch() -> float:
        if per_call_context:
            return await time_async_calls(fresh, plan.calls)
        return await time_async_calls(lambda: tool.on_invoke_tool(shared, "{}"), plan.calls)

    return batch


# --- 1. dispatch per call ------------------------------------------------------------------

BARE = "Prism `dispatch_tool_call`, bare (registry only)"
FULL_PIPELINE = "Prism `dispatch_tool_call`, full pipeline"
PAI_FTS = "pydantic-ai `ToolManager.handle_call` (FunctionToolset)"
PAI_AGENT = "pydantic-ai `ToolManager.handle_call` (built by `Agent.run`)"
OPENAI = "openai-agents `FunctionTool.on_invoke_tool`"
OPENAI_CTX = "openai-agents `on_invoke_tool` + per-call `ToolContext` (as its runner)"


async def measure_dispatch(plan: Plan) -> dict[str, tuple[float, float]]:
    """(median, best) seconds per call for every subject, repeats interleaved round-robin."""
    subjects = {
        BARE: prism_subject(plan, (), None),
        FULL_PIPELINE: prism_subject(plan, GATES, None),
        "Prism full pipeline + validator seam (stub validator)": prism_subject(
            plan, GATES, create_tool_parameter_validator(AcceptObjects())
        ),
    }
    real = json_schema_validator()
    if real is not None:
        label = "Prism full pipeline + `prism.jsonschema` validator"
        subjects[label] = prism_subject(plan, GATES, real)
    subjects[PAI_FTS] = await pai_function_toolset_subject(plan)
    subjects[PAI_AGENT] = pai_agent_subject(plan)
    subjects[OPENAI] = openai_agents_subject(plan, per_call_context=False)
    subjects[OPENAI_CTX] = openai_agents_subject(plan, per_call_context=True)
    for batch in subjects.values():  # warm-up: caches, specialization, lazy imports
        await batch()
    samples = await interleaved_async(subjects, plan.repeats)
    return {name: (median(values), min(values)) for name, values in samples.items()}


def dispatch_report(figures: dict[str, tuple[float, float]]) -> tuple[str, list[Target]]:
    us = {name: med for name, (med, _) in figures.items()}
    best = {name: low for name, (_, low) in figures.items()}
    pai, agent_pai, oa = us[PAI_FTS], us[PAI_AGENT], us[OPENAI]
    rows = [
        [name, fmt_us(value), fmt_ratio(value / pai), fmt_ratio(value / agent_pai),
         fmt_ratio(value / oa), fmt_us(best[name]), fmt_ratio(best[name] / best[PAI_FTS]),
         fmt_ratio(best[name] / best[OPENAI])]
        for name, value in us.items()
    ]  # fmt: skip
    table = markdown_table(
        ["subject (async no-op tool)", "µs/call (median)", "÷ pydantic-ai (FunctionToolset)",
         "÷ pydantic-ai (Agent-built)", "÷ openai-agents", "best batch µs/call",
         "best ÷ pydantic-ai (FunctionToolset)", "best ÷ openai-agents"],
        rows,
    )  # fmt: skip
    full, best_pai = us[FULL_PIPELINE], min(pai, agent_pai)
    return table, [
        ("dispatch, full pipeline ≤ 1/3 of pydantic-ai `handle_call` (its faster variant)",
         f"{fmt_ratio(full / best_pai)} (best batches "
         f"{fmt_ratio(best[FULL_PIPELINE] / min(best[PAI_FTS], best[PAI_AGENT]))})",
         full <= best_pai / 3),
        ("dispatch, full pipeline below openai-agents `on_invoke_tool`",
         f"{fmt_ratio(full / oa)} (best batches {fmt_ratio(best[FULL_PIPELINE] / best[OPENAI])})",
         full < oa),
    ]  # fmt: skip


# --- 2. agent loop marginal cost -----------------------------------------------------------


def prism_loop_subject(k: int, concurrency: int, gated: bool, runs: int) -> Batch:
    """Mean seconds per ``Agent.run`` whose scripted model asks for ``k`` calls in one turn."""
    calls = tuple(ToolCall(id=f"call_{i}", name="noop", arguments={}) for i in range(k))
    script = (ModelResponse(tool_calls=calls), ModelResponse(content=(TextContent(text="done"),)))

    async def batch() -> float:
        total = 0.0
        for _ in range(runs):
            gates = Gates()
            extra = gates.options(("tool_filter", "permission", "middleware", "ledger"))
            agent = Agent(
                provider=ScriptedProvider(script), model="scripted", tools=[NOOP],
                loop=LoopOptions(tool_concurrency=concurrency), **(extra if gated else {}),
            )  # fmt: skip
            start = time.perf_counter()
            result = await agent.run("go", emit=gates.events.append if gated else None)
            total += time.perf_counter() - start
            assert result.finish_reason == "stop" and len(result.messages) == k + 3, result
        return total / runs

    return batch


def pai_loop_subject(k: int, runs: int) -> Batch:
    """Mean seconds per pydantic-ai ``Agent.run`` whose ``FunctionModel`` asks for ``k`` calls."""
    parts = [ToolCallPart(tool_name="noop", args={}, tool_call_id=f"call_{i}") for i in range(k)]

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        return PaiResponse(parts=list(parts) if len(messages) == 1 else [TextPart("done")])

    agent = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="noop")(pai_noop)

    async def batch() -> float:
        start = time.perf_counter()
        for _ in range(runs):
            assert (await agent.run("go")).output == "done"
        return (time.perf_counter() - start) / runs

    return batch


LOOP_SUBJECTS = {  # label: (tool_concurrency, full gates, judged against the target)
    "Prism `Agent.run`, concurrency 1 (default)": (1, False, True),
    "Prism `Agent.run`, concurrency 64": (64, False, True),
    "Prism `Agent.run`, concurrency 64, full gates + emit + ledger": (64, True, False),
}
PAI_LOOP = "pydantic-ai `Agent.run` (`FunctionModel`, parallel tools)"


async def measure_loop(plan: Plan) -> dict[str, tuple[float, float]]:
    """Median seconds per run at ``K_SMALL`` and ``K_BIG`` calls, per subject."""
    subjects: dict[str, Batch] = {}
    for k in (K_SMALL, K_BIG):
        for label, (conc, gated, _) in LOOP_SUBJECTS.items():
            subjects[f"{label}|{k}"] = prism_loop_subject(k, conc, gated, plan.loop_runs)
        subjects[f"{PAI_LOOP}|{k}"] = pai_loop_subject(k, plan.loop_runs)
    for batch in subjects.values():
        await batch()
    samples = await interleaved_async(subjects, plan.loop_repeats)
    return {
        label: (median(samples[f"{label}|{K_SMALL}"]), median(samples[f"{label}|{K_BIG}"]))
        for label in [*LOOP_SUBJECTS, PAI_LOOP]
    }


def loop_report(runs: dict[str, tuple[float, float]]) -> tuple[str, list[Target]]:
    marginal = {label: (big - small) / (K_BIG - K_SMALL) for label, (small, big) in runs.items()}
    pai = marginal[PAI_LOOP]
    rows = [
        [label, fmt_ms(small), fmt_ms(big), fmt_us(marginal[label]),
         fmt_ratio(marginal[label] / pai)]
        for label, (small, big) in runs.items()
    ]  # fmt: skip
    table = markdown_table(
        ["subject", f"ms/run, K={K_SMALL}", f"ms/run, K={K_BIG}", "marginal µs/tool call",
         "÷ pydantic-ai"],
        rows,
    )  # fmt: skip
    return table, [
        (f"agent loop marginal ≤ 1/5 of pydantic-ai ({label.split(', ', 1)[1]})",
         fmt_ratio(marginal[label] / pai), marginal[label] <= pai / 5)
        for label, (_, _, judged) in LOOP_SUBJECTS.items() if judged
    ]  # fmt: skip


# --- 3. 64 x 20 ms tools in one turn -------------------------------------------------------


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
    registry = create_tool_registry([SLEEP20])
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
    calls = tuple(ToolCall(id=f"call_{i}", name="sleep20", arguments={}) for i in range(BATCH))
    script = (ModelResponse(tool_calls=calls), ModelResponse())

    async def batch() -> float:
        agent = Agent(provider=ScriptedProvider(script), model="m", tools=[SLEEP20],
                             loop=LoopOptions(tool_concurrency=64))  # fmt: skip
        start = time.perf_counter()
        assert (await agent.run("go")).finish_reason == "stop"
        return time.perf_counter() - start

    return batch


BATCH_SUBJECTS: dict[str, Callable[[], Batch]] = {  # label ends with the concurrency
    "raw anyio task group + semaphore, limit 64": lambda: raw_subject(64),
    "raw anyio task group + semaphore, limit 8": lambda: raw_subject(8),
    "Prism `dispatch_tool_calls_in_order`, concurrency 64": lambda: prism_batch_subject(64, False),
    "Prism `dispatch_tool_calls_in_order`, concurrency 8": lambda: prism_batch_subject(8, False),
    "Prism `dispatch_tool_calls_in_order` + full gates, concurrency 64": lambda: (
        prism_batch_subject(64, True)
    ),
    "Prism `Agent.run` (whole run), concurrency 64": prism_agent_batch_subject,
}


async def batch_times(plan: Plan) -> dict[str, tuple[float, float]]:
    """(median, best) seconds per turn for each subject on the current backend (interleaved)."""
    subjects = {label: make() for label, make in BATCH_SUBJECTS.items()}
    for batch in subjects.values():
        await batch()
    samples = await interleaved_async(subjects, plan.batch_repeats)
    return {label: (median(values), min(values)) for label, values in samples.items()}


async def pai_batch_time(plan: Plan) -> tuple[float, float]:
    """pydantic-ai ``Agent.run`` whose model asks for 64 x 20 ms tools in one turn."""
    parts = [ToolCallPart(tool_name="sleep20", args={}, tool_call_id=f"c{i}") for i in range(64)]

    def model(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        return PaiResponse(parts=list(parts) if len(messages) == 1 else [TextPart("done")])

    async def sleep20() -> None:
        await asyncio.sleep(SLEEP)

    agent = PaiAgent(FunctionModel(model))
    agent.tool_plain(name="sleep20")(sleep20)
    samples = []
    for i in range(plan.batch_repeats + 1):  # the first run is the warm-up
        settle()
        start = time.perf_counter()
        assert (await agent.run("go")).output == "done"
        if i:
            samples.append(time.perf_counter() - start)
    return median(samples), min(samples)


PAI_BATCH = "pydantic-ai `Agent.run` (whole run), parallel"


def measure_batches(plan: Plan) -> dict[tuple[str, str], tuple[float, float]]:
    """(median, best) seconds per turn for each (backend, subject)."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for backend in ("asyncio", "trio"):
        times = anyio.run(batch_times, plan, backend=backend)
        out.update({(backend, label): t for label, t in times.items()})
    out[("asyncio", PAI_BATCH)] = asyncio.run(pai_batch_time(plan))
    return out


def batch_report(
    times: dict[tuple[str, str], tuple[float, float]],
) -> tuple[str, list[Target]]:
    rows, targets = [], []
    for (backend, label), (seconds, best) in times.items():
        limit = label.rsplit(" ", 1)[1]
        ideal = SLEEP * BATCH / int(limit) if limit.isdigit() else SLEEP
        raw = times.get((backend, f"raw anyio task group + semaphore, limit {limit}"))
        goal = 0.9 if ideal > SLEEP else 0.8
        judged = label.startswith("Prism `dispatch_tool_calls_in_order`, concurrency")
        rows.append([backend, label, fmt_ms(seconds), fmt_ms(ideal), f"{ideal / seconds:.2f}",
                     f"{ideal / best:.2f}",
                     fmt_ratio(seconds / raw[0]) if raw and label.startswith("Prism") else "",
                     f"≥ {goal}" if judged else ""])  # fmt: skip
        if judged:
            targets.append((f"64 x 20 ms, {backend}, concurrency {limit}: efficiency ≥ {goal}",
                            f"{ideal / seconds:.2f} (best run {ideal / best:.2f})",
                            ideal / seconds >= goal))  # fmt: skip
    table = markdown_table(
        ["backend", "subject (64 x 20 ms tools, one turn)", "ms (median)", "ideal ms",
         "efficiency (ideal ÷ median)", "best run", "÷ raw task group", "target"],
        rows,
    )  # fmt: skip
    return table, targets


# --- 4. import time ------------------------------------------------------------------------


JSON, CORE = "import json", "import prism.core"
CORE_NAMES = (
    "from prism.core import dispatch_tool_call, ToolDefinition; from prism.core.agent import Agent"
)
"""First use: what a program that dispatches tools and runs agents pays (the judged figure)."""


def import_report(plan: Plan) -> tuple[str, list[Target]]:
    figures = measure_imports([JSON, CORE, CORE_NAMES], plan.import_reps)
    base = figures[JSON]
    rows = [
        [f"`{statement}`", fmt_ms(f.import_seconds),
         fmt_ratio(f.import_seconds / base.import_seconds), fmt_ms(f.process_seconds),
         fmt_ratio(f.process_seconds / base.process_seconds),
         "yes" if f.asyncio else "no", "yes" if f.trio else "no"]
        for statement, f in figures.items()
    ]  # fmt: skip
    table = markdown_table(
        ["import (fresh interpreter, bytecode cached)", "import ms", "÷ json", "process ms",
         "÷ json", "asyncio imported", "trio imported"],
        rows,
    )  # fmt: skip
    core, names = figures[CORE], figures[CORE_NAMES]
    return table, [
        ("`import prism.core` on first use (`" + CORE_NAMES + "`) ≤ 1.5× `import json`",
         fmt_ratio(names.import_seconds / base.import_seconds),
         names.import_seconds <= 1.5 * base.import_seconds),
        ("bare `import prism.core` (lazy names, reference) ≤ 1.5× `import json`",
         fmt_ratio(core.import_seconds / base.import_seconds),
         core.import_seconds <= 1.5 * base.import_seconds),
        ("`import prism.core` imports neither asyncio nor trio",
         f"asyncio {'yes' if core.asyncio else 'no'}, trio {'yes' if core.trio else 'no'}",
         not core.asyncio and not core.trio),
        ("... nor does importing the dispatch and agent names",
         f"asyncio {'yes' if names.asyncio else 'no'}, trio {'yes' if names.trio else 'no'}",
         not names.asyncio and not names.trio),
    ]  # fmt: skip


# --- profile and main ----------------------------------------------------------------------


async def gate_costs(plan: Plan) -> str:
    """µs per call with one gate at a time on top of the bare pipeline (interleaved)."""
    seam = create_tool_parameter_validator(AcceptObjects())
    subjects = {"bare": prism_subject(plan, (), None)}
    subjects.update({f"+ {gate}": prism_subject(plan, (gate,), None) for gate in GATES})
    subjects["+ validator seam"] = prism_subject(plan, (), seam)
    subjects["full pipeline"] = prism_subject(plan, GATES, None)
    for batch in subjects.values():
        await batch()
    samples = await interleaved_async(subjects, plan.repeats)
    bare, bare_best = median(samples["bare"]), min(samples["bare"])
    rows = [
        [
            name,
            fmt_us(median(v)),
            fmt_us(median(v) - bare),
            fmt_us(min(v)),
            fmt_us(min(v) - bare_best),
        ]
        for name, v in samples.items()
    ]
    return markdown_table(
        ["Prism configuration", "µs/call (median)", "Δ vs bare", "best batch µs/call",
         "Δ vs bare (best)"],
        rows,
    )  # fmt: skip


async def profile_full_pipeline(calls: int) -> str:
    """cProfile of the full pipeline, by own time: where Prism's microseconds go."""
    kw = {"registry": create_tool_registry([NOOP]), **Gates().options()}
    for _ in range(500):
        await dispatch_tool_call(CALL, **kw)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        await dispatch_tool_call(CALL, **kw)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    return out.getvalue()


def progress(section: str, began: float) -> None:
    print(f"[{time.perf_counter() - began:5.1f} s] {section} done", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run (< 20 s)")
    parser.add_argument("--profile", action="store_true", help="gate costs and a cProfile")
    parser.add_argument("--imports-only", action="store_true", help="only section 4 (imports)")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    began = time.perf_counter()
    if args.imports_only:
        imports, import_targets = import_report(plan)
        print(f"Command: `{COMMAND} --imports-only` — {machine_line()}.\n")
        print("**4. Import time**\n\n" + imports + "\n")
        print("**Targets**\n\n" + targets_table(import_targets))
        return
    dispatch, targets = dispatch_report(asyncio.run(measure_dispatch(plan)))
    progress("dispatch", began)
    loop, loop_targets = loop_report(asyncio.run(measure_loop(plan)))
    progress("agent loop", began)
    batches, batch_targets = batch_report(measure_batches(plan))
    progress("64 x 20 ms", began)
    imports, import_targets = import_report(plan)
    progress("imports", began)
    mode = " --quick" if args.quick else ""
    print(f"Command: `{COMMAND}{mode}` — {machine_line()}; medians of interleaved repeats "
          f"({time.perf_counter() - began:.0f} s of measuring).\n")  # fmt: skip
    print("**1. Dispatch overhead per call**\n\n" + dispatch + "\n")
    print(f"**2. Agent loop, marginal cost per tool call** (K={K_SMALL} vs K={K_BIG} calls in "
          "one turn)\n\n" + loop + "\n")  # fmt: skip
    print("**3. 64 x 20 ms tools in one turn**\n\n" + batches + "\n")
    print("**4. Import time**\n\n" + imports + "\n")
    print("**Targets**\n\n" + targets_table(targets + loop_targets + batch_targets
                                            + import_targets))  # fmt: skip
    if args.profile:
        print("\n**Gate costs**\n\n" + asyncio.run(gate_costs(plan)))
        print("\n```\n" + asyncio.run(profile_full_pipeline(plan.calls * 10)) + "```")


if __name__ == "__main__":
    main()
