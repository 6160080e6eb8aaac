"""Sections 2 and 3 of the dispatch benchmark: an agent run's marginal cost per tool call, and
64 x 20 ms tools in one turn on asyncio and trio, each beside its peer or floor."""

from __future__ import annotations

import anyio
from _common import Batch, Figures, Target, fmt_ms, fmt_ratio, fmt_us, markdown_table, measure_async
from _dispatch_peers import pai_batch_subject, pai_loop_subject
from _dispatch_prism import (
    BATCH,
    SLEEP,
    Plan,
    prism_agent_batch_subject,
    prism_batch_subject,
    prism_loop_subject,
    raw_subject,
)

K_SMALL, K_BIG = 1, 33
LOOP_SUBJECTS = {  # label: (tool_concurrency, full gates, judged against the target)
    "Prism `Agent.run`, concurrency 1 (default)": (1, False, True),
    "Prism `Agent.run`, concurrency 64": (64, False, True),
    "Prism `Agent.run`, concurrency 64, full gates + emit + ledger": (64, True, False),
}
PAI_LOOP = "pydantic-ai `Agent.run` (`FunctionModel`, parallel tools)"


async def measure_loop(plan: Plan) -> dict[str, tuple[Figures, Figures]]:
    """Seconds per run at ``K_SMALL`` and ``K_BIG`` calls, per subject (interleaved)."""
    subjects: dict[str, Batch] = {}
    for k in (K_SMALL, K_BIG):
        for label, (conc, gated, _) in LOOP_SUBJECTS.items():
            subjects[f"{label}|{k}"] = prism_loop_subject(k, conc, gated, plan.loop_runs)
        subjects[f"{PAI_LOOP}|{k}"] = pai_loop_subject(k, plan.loop_runs)
    figures = await measure_async(subjects, plan.loop_repeats)
    return {
        label: (figures[f"{label}|{K_SMALL}"], figures[f"{label}|{K_BIG}"])
        for label in [*LOOP_SUBJECTS, PAI_LOOP]
    }


def _marginal(small: float, big: float) -> float:
    return (big - small) / (K_BIG - K_SMALL)


def loop_report(runs: dict[str, tuple[Figures, Figures]]) -> tuple[str, list[Target]]:
    """The section's table and targets: marginal cost judged on medians, best batches beside."""
    marginal = {label: _marginal(s.median, b.median) for label, (s, b) in runs.items()}
    best = {label: _marginal(s.best, b.best) for label, (s, b) in runs.items()}
    pai = marginal[PAI_LOOP]
    rows = [
        [label, fmt_ms(small.median), fmt_ms(big.median), fmt_us(marginal[label]),
         fmt_ratio(marginal[label] / pai), fmt_us(best[label])]
        for label, (small, big) in runs.items()
    ]  # fmt: skip
    table = markdown_table(
        ["subject", f"ms/run, K={K_SMALL}", f"ms/run, K={K_BIG}", "marginal µs/tool call",
         "÷ pydantic-ai", "marginal µs, best batches"],
        rows,
    )  # fmt: skip
    return table, [
        (f"agent loop marginal ≤ 1/5 of pydantic-ai ({label.split(', ', 1)[1]})",
         fmt_ratio(marginal[label] / pai), marginal[label] <= pai / 5)
        for label, (_, _, judged) in LOOP_SUBJECTS.items() if judged
    ]  # fmt: skip


BATCH_SUBJECTS = {  # label ends with the concurrency
    "raw anyio task group + semaphore, limit 64": lambda: raw_subject(64),
    "raw anyio task group + semaphore, limit 8": lambda: raw_subject(8),
    "Prism `dispatch_tool_calls_in_order`, concurrency 64": lambda: prism_batch_subject(64, False),
    "Prism `dispatch_tool_calls_in_order`, concurrency 8": lambda: prism_batch_subject(8, False),
    "Prism `dispatch_tool_calls_in_order` + full gates, concurrency 64": lambda: (
        prism_batch_subject(64, True)
    ),
    "Prism `Agent.run` (whole run), concurrency 64": prism_agent_batch_subject,
}
PAI_BATCH = "pydantic-ai `Agent.run` (whole run), parallel"


async def _batch_times(plan: Plan, backend: str) -> dict[str, Figures]:
    subjects = {label: make() for label, make in BATCH_SUBJECTS.items()}
    if backend == "asyncio":  # the peer's tools sleep with asyncio.sleep
        subjects[PAI_BATCH] = pai_batch_subject()
    return await measure_async(subjects, plan.batch_repeats)


def measure_batches(plan: Plan) -> dict[tuple[str, str], Figures]:
    """Seconds per turn for each (backend, subject), interleaved within each backend."""
    out: dict[tuple[str, str], Figures] = {}
    for backend in ("asyncio", "trio"):
        times = anyio.run(_batch_times, plan, backend, backend=backend)
        out.update({(backend, label): f for label, f in times.items()})
    return out


def batch_report(times: dict[tuple[str, str], Figures]) -> tuple[str, list[Target]]:
    """The section's table and the efficiency targets of the bare batch rows."""
    rows, targets = [], []
    for (backend, label), f in times.items():
        limit = label.rsplit(" ", 1)[1]
        ideal = SLEEP * BATCH / int(limit) if limit.isdigit() else SLEEP
        raw = times.get((backend, f"raw anyio task group + semaphore, limit {limit}"))
        goal = 0.9 if ideal > SLEEP else 0.8
        judged = label.startswith("Prism `dispatch_tool_calls_in_order`, concurrency")
        rows.append([backend, label, fmt_ms(f.median), fmt_ms(ideal), f"{ideal / f.median:.2f}",
                     f"{ideal / f.best:.2f}",
                     fmt_ratio(f.median / raw.median) if raw and label.startswith("Prism") else "",
                     f"≥ {goal}" if judged else ""])  # fmt: skip
        if judged:
            targets.append((f"64 x 20 ms, {backend}, concurrency {limit}: efficiency ≥ {goal}",
                            f"{ideal / f.median:.2f} (best run {ideal / f.best:.2f})",
                            ideal / f.median >= goal))  # fmt: skip
    table = markdown_table(
        ["backend", "subject (64 x 20 ms tools, one turn)", "ms (median)", "ideal ms",
         "efficiency (ideal ÷ median)", "best run", "÷ raw task group", "target"],
        rows,
    )  # fmt: skip
    return table, targets
