"""Core benchmark: Prism dispatch and agent loop side by side with pydantic-ai and openai-agents.

Run: ``uv run --group bench python scripts/bench/dispatch.py [--quick] [--profile]``.
Prints markdown tables (absolute figures and ratios, then the performance targets):
1. µs per call of ``dispatch_tool_call`` on an async no-op tool vs pydantic-ai
   ``ToolManager.handle_call`` and openai-agents ``FunctionTool.on_invoke_tool``; the judged
   Prism row validates its arguments with ``prism.jsonschema``, as both peers validate theirs;
2. agent-loop marginal cost per tool call, Prism's agent + ``ScriptedProvider`` vs
   pydantic-ai ``Agent.run`` + ``FunctionModel``;
3. 64 x 20 ms tools in one turn at concurrency 64 and 8, asyncio and trio, next to a raw
   anyio task group doing the same sleeps;
4. first use (the dispatch names and the agent) and ``import prism.core`` vs ``import json``
   in fresh interpreters.
``--profile`` adds a per-gate cost breakdown and a cProfile of the full pipeline.
"""

from __future__ import annotations

import asyncio
import sys
import time

from _common import Target, bench_parser, header, targets_table
from _dispatch_calls import dispatch_report, gate_costs, measure_dispatch, profile_full_pipeline
from _dispatch_imports import import_report
from _dispatch_prism import FULL, QUICK
from _dispatch_turns import K_BIG, K_SMALL, batch_report, loop_report, measure_batches, measure_loop

COMMAND = "uv run --group bench python scripts/bench/dispatch.py"


def _progress(section: str, began: float) -> None:
    print(f"[{time.perf_counter() - began:5.1f} s] {section} done", file=sys.stderr)


def _sections(quick: bool, began: float) -> tuple[list[str], list[Target]]:
    """Every section's text, in order, and all their targets."""
    plan = QUICK if quick else FULL
    texts: list[str] = []
    targets: list[Target] = []
    table, found = dispatch_report(asyncio.run(measure_dispatch(plan)))
    texts.append("**1. Dispatch overhead per call** (judged row: with argument validation, as "
                 "the peers validate; the other Prism rows are context)\n\n" + table)  # fmt: skip
    targets += found
    _progress("dispatch", began)
    table, found = loop_report(asyncio.run(measure_loop(plan)))
    texts.append(f"**2. Agent loop, marginal cost per tool call** (K={K_SMALL} vs K={K_BIG} "
                 "calls in one turn)\n\n" + table)  # fmt: skip
    targets += found
    _progress("agent loop", began)
    table, found = batch_report(measure_batches(plan))
    texts.append("**3. 64 x 20 ms tools in one turn**\n\n" + table)
    targets += found
    _progress("64 x 20 ms", began)
    table, found = import_report(plan)
    texts.append("**4. Import time**\n\n" + table)
    targets += found
    _progress("imports", began)
    return texts, targets


def main() -> None:
    parser = bench_parser(__doc__, "smoke run (< 20 s)")
    parser.add_argument("--profile", action="store_true", help="gate costs and a cProfile")
    parser.add_argument("--imports-only", action="store_true", help="only section 4 (imports)")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    began = time.perf_counter()
    flags = "".join(f" --{name.replace('_', '-')}" for name in ("quick", "imports_only", "profile")
                    if getattr(args, name))  # fmt: skip
    if args.imports_only:
        table, targets = import_report(plan)
        print(header(COMMAND + flags))
        print("**4. Import time**\n\n" + table + "\n")
        print("**Targets**\n\n" + targets_table(targets))
        return
    texts, targets = _sections(args.quick, began)
    print(header(COMMAND + flags, f"{time.perf_counter() - began:.0f} s of measuring"))
    for text in texts:
        print(text + "\n")
    print("**Targets**\n\n" + targets_table(targets))
    if args.profile:
        print("\n**Gate costs**\n\n" + asyncio.run(gate_costs(plan)))
        print("\n```\n" + asyncio.run(profile_full_pipeline(plan.calls * 10)) + "```")


if __name__ == "__main__":
    main()
