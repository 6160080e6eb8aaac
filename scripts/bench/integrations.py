"""Framework integrations: what Prism's pipeline adds per tool call inside pydantic-ai and the
OpenAI Agents SDK, beside the framework's own per-call cost, measured in one run.

A scripted model asks for K no-op tool calls in one turn, then answers. For each framework:
plain (its own tools), Prism (Prism's pipeline: registry, permission policy, ledger) and the
same run with no tool call at all. Framework per-call cost = (plain - none) / K; Prism adds
(prism - plain) / K. Target: Prism adds less than the framework's own per-call cost.

Run: ``uv run --group bench python scripts/bench/integrations.py [--quick] [--calls K]
[--repeats R] [--rounds N]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from _common import (
    AsyncThunk,
    Batch,
    Figures,
    bench_parser,
    fmt_ms,
    fmt_ratio,
    fmt_us,
    header,
    markdown_table,
    measure_async,
    targets_table,
    time_async_calls,
)

from prism.core import (
    InMemoryRunLedger,
    ToolDefinition,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    create_static_permission_policy,
)

COMMAND = "uv run --group bench python scripts/bench/integrations.py"


async def noop(args: Any, ctx: Any) -> str:
    return "ok"


def prism_pipeline() -> ToolPipeline:
    return ToolPipeline(
        registry=ToolRegistry([ToolDefinition(name="noop", execute=noop)]),
        gates=ToolGates(
            permission=create_static_permission_policy(deny=["tool:rm:*"]),
            ledger=InMemoryRunLedger(),
        ),
    )


def _timed(run: AsyncThunk, rounds: int) -> Batch:
    """A batch of ``rounds`` whole runs; its figure is seconds per run."""
    return lambda: time_async_calls(run, rounds)


def pydantic_ai_subjects(calls: int, rounds: int) -> dict[str, Batch]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from prism.pydantic_ai import PrismToolset

    def model(n: int) -> FunctionModel:
        def respond(messages: list[Any], info: Any) -> ModelResponse:
            if n == 0 or any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
                return ModelResponse(parts=[TextPart("done")])
            parts = [ToolCallPart("noop", {}, tool_call_id=f"c{i}") for i in range(n)]
            return ModelResponse(parts=list(parts))

        return FunctionModel(respond)

    plain: FunctionToolset[None] = FunctionToolset()

    @plain.tool_plain(name="noop")
    async def noop_tool() -> str:
        return "ok"

    none_agent = Agent(model(0), toolsets=[plain])
    plain_agent = Agent(model(calls), toolsets=[plain])
    prism_agent = Agent(model(calls), toolsets=[PrismToolset(prism_pipeline())])
    return {
        "pydantic-ai, no call": _timed(lambda: none_agent.run("go"), rounds),
        "pydantic-ai, plain tools": _timed(lambda: plain_agent.run("go"), rounds),
        "pydantic-ai + PrismToolset": _timed(lambda: prism_agent.run("go"), rounds),
    }


def openai_agents_subjects(calls: int, rounds: int) -> dict[str, Batch]:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from prism.openai_agents import prism_function_tools

    @function_tool(name_override="noop")
    async def plain_noop() -> str:
        """Do nothing."""
        return "ok"

    config = RunConfig(tracing_disabled=True)

    def runner(tools: list[Any], n: int) -> Callable[[], Awaitable[object]]:
        async def run() -> object:
            turns: list[Any] = []
            if n:
                turns.append([function_call("noop", {}, call_id=f"c{i}") for i in range(n)])
            turns.append([assistant_message("done")])
            agent = Agent(name="bench", model=ScriptedModel(turns), tools=tools)
            return await Runner.run(agent, "go", run_config=config)

        return run

    prism_tools = prism_function_tools(prism_pipeline())
    return {
        "openai-agents, no call": _timed(runner([plain_noop], 0), rounds),
        "openai-agents, plain tools": _timed(runner([plain_noop], calls), rounds),
        "openai-agents + prism_function_tools": _timed(runner(prism_tools, calls), rounds),
    }


def _framework(figures: dict[str, Figures], prefix: str) -> float:
    """The framework's own cost of the calls (plain tools minus no call), whole-run medians."""
    none, plain, _ = (figures[k] for k in figures if k.startswith(prefix))
    return plain.median - none.median


def _added(figures: dict[str, Figures], prefix: str) -> float:
    """What Prism adds to the calls (Prism's tools minus plain tools), whole-run medians."""
    _, plain, prism = (figures[k] for k in figures if k.startswith(prefix))
    return prism.median - plain.median


def _row(figures: dict[str, Figures], prefix: str, calls: int) -> list[str]:
    """Framework per-call cost and what Prism adds, from medians (best batches beside)."""
    _, plain, prism = (figures[k] for k in figures if k.startswith(prefix))
    framework = _framework(figures, prefix) / calls
    added = _added(figures, prefix) / calls
    best_added = (prism.best - plain.best) / calls
    return [prefix, fmt_us(framework), fmt_us(added), fmt_ratio(added / framework),
            fmt_us(best_added)]  # fmt: skip


async def run(calls: int, repeats: int, rounds: int) -> str:
    """The per-call table, then the whole-run figures it is computed from."""
    subjects = {**pydantic_ai_subjects(calls, rounds), **openai_agents_subjects(calls, rounds)}
    figures = await measure_async(subjects, repeats)
    rows = [_row(figures, "pydantic-ai", calls), _row(figures, "openai-agents", calls)]
    goals = [
        (f"{row[0]}: what Prism adds per call < the framework's own per-call cost", row[3],
         _added(figures, row[0]) < _framework(figures, row[0]))
        for row in rows
    ]  # fmt: skip
    table = markdown_table(
        ["framework", "framework µs/call", "Prism adds µs/call", "added ÷ framework",
         "Prism adds, best batches"],
        rows,
    )  # fmt: skip
    raw = markdown_table(
        [f"run of K={calls} calls", "ms (median)", "ms (best batch)"],
        [[k, fmt_ms(f.median), fmt_ms(f.best)] for k, f in figures.items()],
    )
    return f"{table}\n\n{raw}\n\n**Targets**\n\n{targets_table(goals)}"


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--calls", type=int, default=50, help="tool calls per run (K)")
    parser.add_argument("--repeats", type=int, default=None, help="timed batches (7)")
    parser.add_argument("--rounds", type=int, default=None, help="runs per batch (5)")
    args = parser.parse_args()
    repeats = args.repeats or (3 if args.quick else 7)
    rounds = args.rounds or (2 if args.quick else 5)
    table = asyncio.run(run(args.calls, repeats, rounds))
    command = f"{COMMAND} --calls {args.calls} --repeats {repeats} --rounds {rounds}"
    print(header(command) + "\n" + table)


if __name__ == "__main__":
    main()
