"""Section 1 of the dispatch benchmark (µs per tool call, Prism beside its peers) and the
``--profile`` extras (cost of each gate, cProfile of the full pipeline).

The judged Prism row validates its arguments, like both peers do; the rows without validation
stay in the table as context (what the pipeline costs before the validator).
"""

from __future__ import annotations

import cProfile
import io
import pstats

from _common import (
    Batch,
    Figures,
    Target,
    baseline_table,
    fmt_ratio,
    fmt_us,
    markdown_table,
    measure_async,
)
from _dispatch_peers import openai_agents_subject, pai_agent_subject, pai_function_toolset_subject
from _dispatch_prism import (
    GATES,
    Plan,
    full_pipeline_call,
    json_schema_validator,
    prism_subject,
    stub_validator,
)

BARE = "Prism `dispatch_tool_call`, bare (registry only)"
FULL_PIPELINE = "Prism `dispatch_tool_call`, full pipeline, no argument validation"
STUB = "Prism full pipeline + validator seam (stub validator)"
JUDGED = "Prism `ToolPipeline.dispatch`, full pipeline + `prism.jsonschema` argument validation"
KEYWORDS = "Prism `dispatch_tool_call` (keyword settings), full pipeline + `prism.jsonschema`"
PAI_FTS = "pydantic-ai `ToolManager.handle_call` (FunctionToolset)"
PAI_AGENT = "pydantic-ai `ToolManager.handle_call` (built by `Agent.run`)"
OPENAI = "openai-agents `FunctionTool.on_invoke_tool`"
OPENAI_CTX = "openai-agents `on_invoke_tool` + per-call `ToolContext` (as its runner)"
ROLES = {
    BARE: "context",
    FULL_PIPELINE: "context",
    STUB: "context",
    JUDGED: "**judged**",
    KEYWORDS: "context",
}
"""Each Prism row's role; peer rows are marked ``peer (validates)``."""


async def measure_dispatch(plan: Plan) -> dict[str, Figures]:
    """(median, best) seconds per call for every subject, repeats interleaved round-robin."""
    subjects: dict[str, Batch] = {
        BARE: prism_subject(plan, (), None),
        FULL_PIPELINE: prism_subject(plan, GATES, None),
        STUB: prism_subject(plan, GATES, stub_validator()),
        JUDGED: prism_subject(plan, GATES, json_schema_validator(), held=True),
        KEYWORDS: prism_subject(plan, GATES, json_schema_validator()),
        PAI_FTS: await pai_function_toolset_subject(plan),
        PAI_AGENT: pai_agent_subject(plan),
        OPENAI: openai_agents_subject(plan, per_call_context=False),
        OPENAI_CTX: openai_agents_subject(plan, per_call_context=True),
    }
    return await measure_async(subjects, plan.repeats)


def dispatch_report(figures: dict[str, Figures]) -> tuple[str, list[Target]]:
    """The section's table (judged row labelled) and its two targets, both on the judged row;
    the openai-agents yardstick is its runner path (a ``ToolContext`` per call, as it runs)."""
    pai, agent_pai, oa = figures[PAI_FTS], figures[PAI_AGENT], figures[OPENAI_CTX]
    rows = [
        [name, ROLES.get(name, "peer (validates)"), fmt_us(f.median),
         fmt_ratio(f.median / pai.median), fmt_ratio(f.median / agent_pai.median),
         fmt_ratio(f.median / oa.median), fmt_us(f.best), fmt_ratio(f.best / pai.best),
         fmt_ratio(f.best / oa.best)]
        for name, f in figures.items()
    ]  # fmt: skip
    table = markdown_table(
        ["subject (async no-op tool)", "role", "µs/call (median)",
         "÷ pydantic-ai (FunctionToolset)", "÷ pydantic-ai (Agent-built)",
         "÷ openai-agents (runner path)", "best batch µs/call",
         "best ÷ pydantic-ai (FunctionToolset)", "best ÷ openai-agents (runner path)"],
        rows,
    )  # fmt: skip
    judged = figures[JUDGED]
    faster_pai = min(pai.median, agent_pai.median)
    faster_pai_best = min(pai.best, agent_pai.best)
    return table, [
        ("dispatch (judged: full pipeline + argument validation) ≤ 1/3 of pydantic-ai "
         "`handle_call` (its faster variant)",
         f"{fmt_ratio(judged.median / faster_pai)} (best batches "
         f"{fmt_ratio(judged.best / faster_pai_best)})",
         judged.median <= faster_pai / 3),
        ("dispatch (judged: full pipeline + argument validation) ≤ 1.0× openai-agents' runner "
         "path (`on_invoke_tool` + per-call `ToolContext`)",
         f"{fmt_ratio(judged.median / oa.median)} (best batches "
         f"{fmt_ratio(judged.best / oa.best)})",
         judged.median <= oa.median),
    ]  # fmt: skip


async def gate_costs(plan: Plan) -> str:
    """µs per call with one gate at a time on top of the bare pipeline (interleaved)."""
    subjects = {"bare": prism_subject(plan, (), None)}
    subjects.update({f"+ {gate}": prism_subject(plan, (gate,), None) for gate in GATES})
    subjects["+ validator seam"] = prism_subject(plan, (), stub_validator())
    subjects["+ `prism.jsonschema` validator"] = prism_subject(plan, (), json_schema_validator())
    subjects["full pipeline"] = prism_subject(plan, GATES, None)
    subjects["full pipeline + `prism.jsonschema` validator"] = prism_subject(
        plan, GATES, json_schema_validator()
    )
    figures = await measure_async(subjects, plan.repeats)
    return baseline_table(figures, "bare", "Prism configuration", delta=True)


async def profile_full_pipeline(calls: int) -> str:
    """cProfile of the full pipeline, by own time: where Prism's microseconds go."""
    call = full_pipeline_call()
    for _ in range(500):
        await call()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        await call()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    return out.getvalue()
