"""Thread-CPU figures for A/B runs of two checkouts on a shared machine (issue 25).

Run: ``uv run --group bench python scripts/bench/thread_cpu.py [--no-copy]`` in each checkout,
alternately (for example ``git worktree add --detach /tmp/base main``, then run this file from
either checkout with each one's environment: base, this, base, this), and compare the minimum of
each figure. Prints one JSON object of µs per call:
- ``validation``: a cache-hit validation of table 1's small/medium/large instances, valid and
  invalid, on both engines;
- ``dispatch``: the bare row, the judged dispatch row (full pipeline + ``prism.jsonschema``
  through a held ``ToolPipeline``), the same through ``dispatch_tool_call``'s keyword settings
  and openai-agents' runner path, interleaved batch by batch, with judged ÷ runner path; with
  ``--no-copy`` also the judged row with core's canonical copy replaced by the bare check
  (what the copy itself costs). ``--dispatch-only`` skips ``validation``.
Each figure is the fastest of several rounds of the mean per call, timed with the calling
thread's CPU time, which other processes' load inflates far less than wall time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from _dispatch_peers import oa_noop
from _dispatch_prism import CALL, GATES, NOOP, Gates, held_call, json_schema_validator
from agents import RunContextWrapper
from agents.tool_context import ToolContext
from cache_hits import validation
from openai.types.responses import ResponseFunctionToolCall

from prism.core import ToolRegistry, dispatch_tool_call
from prism.core import _dispatch as core_dispatch
from prism.core._arguments import check_json_object

ROUNDS = 7


Thunk = Callable[[], Awaitable[object]]


def _prism_batch(which: tuple[str, ...], validator: Any, held: bool = False) -> Callable[[], Thunk]:
    """A fresh set of gates (empty sink and ledger) per batch; one call of it per thunk."""
    registry = ToolRegistry([NOOP])

    def make() -> Thunk:
        kw: dict[str, Any] = {"registry": registry, **Gates().options(which, validator)}
        return held_call(kw) if held else functools.partial(dispatch_tool_call, CALL, **kw)

    return make


def _runner_path_batch() -> Thunk:
    """openai-agents' runner path: a ``ToolContext`` per call, then ``on_invoke_tool``."""
    wrapper: RunContextWrapper[None] = RunContextWrapper(context=None)
    raw = ResponseFunctionToolCall(
        arguments="{}", call_id="call_1", name="oa_noop", type="function_call"
    )

    async def fresh() -> object:
        ctx = ToolContext.from_agent_context(wrapper, raw.call_id, tool_call=raw)
        return await oa_noop.on_invoke_tool(ctx, raw.arguments)

    return fresh


async def _interleaved(subjects: dict[str, Callable[[], Thunk]]) -> dict[str, float]:
    """µs per call, median and best of ``2 * ROUNDS`` batches of 2,000 calls, subjects taking
    turns batch by batch (so load drift hits each alike)."""
    batches: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(2 * ROUNDS):
        for name, make in subjects.items():
            one = make()
            await one()
            started = time.thread_time()
            for _ in range(2_000):
                await one()
            batches[name].append((time.thread_time() - started) / 2_000 * 1e6)
    out: dict[str, float] = {}
    for name, figures in batches.items():
        out[name] = statistics.median(figures)
        out[f"{name} (best)"] = min(figures)
    return out


def _check_only(arguments: object, max_bytes: int, max_nodes: int | None = None) -> Any:
    """The pre-#25 argument check: no copy, the caller's object goes on."""
    why = check_json_object(arguments, max_bytes)
    return (None, why) if why else (arguments, None)


async def dispatch(no_copy: bool) -> dict[str, float]:
    """µs per call: the bare row, the judged row (a held ``ToolPipeline``), the same gates
    through ``dispatch_tool_call``'s keyword settings, openai-agents' runner path, and
    optionally the judged row without the canonical copy; then judged ÷ runner path."""
    validator = json_schema_validator()
    subjects = {
        "bare": _prism_batch((), None),
        "judged": _prism_batch(GATES, validator, held=True),
        "judged, keyword settings": _prism_batch(GATES, validator),
        "openai-agents runner path": _runner_path_batch,  # a new ToolContext per call already
    }
    out = await _interleaved(subjects)
    for kind in ("", " (best)"):
        out[f"judged ÷ runner path{kind}"] = (
            out[f"judged{kind}"] / out[f"openai-agents runner path{kind}"]
        )
    if no_copy:
        real = core_dispatch.canonical_json_object
        core_dispatch.canonical_json_object = _check_only  # type: ignore[assignment]
        try:
            judged = {"judged, check without copy": _prism_batch(GATES, validator, held=True)}
            out.update(await _interleaved(judged))
        finally:
            core_dispatch.canonical_json_object = real
    return out


def main() -> None:
    figures = {} if "--dispatch-only" in sys.argv else {"validation": validation()}
    figures["dispatch"] = asyncio.run(dispatch("--no-copy" in sys.argv))
    figures["load average"] = list(os.getloadavg())  # type: ignore[assignment]
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
