"""Thread-CPU figures for A/B runs of two checkouts on a shared machine (issue 25).

Run: ``uv run --group bench python scripts/bench/thread_cpu.py [--no-copy]`` in each checkout,
alternately (for example ``git worktree add --detach /tmp/base main``, then run this file from
either checkout with each one's environment: base, this, base, this), and compare the minimum of
each figure. Prints one JSON object of µs per call:
- ``validation``: a cache-hit validation of table 1's small/medium/large instances, valid and
  invalid, on both engines;
- ``dispatch``: the bare row and the judged dispatch row (full pipeline + ``prism.jsonschema``);
  with ``--no-copy`` also the judged row with core's canonical copy replaced by the bare check
  (what the copy itself costs).
Each figure is the fastest of several rounds of the mean per call, timed with the calling
thread's CPU time, which other processes' load inflates far less than wall time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from _dispatch_prism import CALL, GATES, NOOP, Gates, held_call, json_schema_validator
from _validation_cases import SIZES

from prism.core import ToolRegistry, dispatch_tool_call
from prism.core import _dispatch as core_dispatch
from prism.core._arguments import check_json_object
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

ROUNDS = 7
CALLS = {"small": 20_000, "medium": 2_000, "large": 40}


def _best(run: Callable[[], object], calls: int) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.thread_time()
        for _ in range(calls):
            run()
        best = min(best, (time.thread_time() - started) / calls)
    return best * 1e6


def validation() -> dict[str, float]:
    """µs per cache-hit validation, by case and engine."""
    out: dict[str, float] = {}
    for size, make in SIZES.items():
        schema, valid, invalid = make()
        for engine in ("fastjsonschema", "jsonschema-rs"):
            options = JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
            validator = JsonSchemaArgumentValidator(options=options)
            for kind, instance in (("valid", valid), ("invalid", invalid)):
                validator.validate(schema, instance)

                once = functools.partial(validator.validate, schema, instance)
                out[f"{size} {kind} {engine}"] = _best(once, CALLS[size])
    return out


async def _dispatch_row(which: tuple[str, ...], validator: Any, held: bool = False) -> float:
    registry = ToolRegistry([NOOP])
    best = float("inf")
    for _ in range(2 * ROUNDS):
        kw: dict[str, Any] = {"registry": registry, **Gates().options(which, validator)}
        one = held_call(kw) if held else functools.partial(dispatch_tool_call, CALL, **kw)
        await one()
        started = time.thread_time()
        for _ in range(2_000):
            await one()
        best = min(best, (time.thread_time() - started) / 2_000)
    return best * 1e6


def _check_only(arguments: object, max_bytes: int, max_nodes: int | None = None) -> Any:
    """The pre-#25 argument check: no copy, the caller's object goes on."""
    why = check_json_object(arguments, max_bytes)
    return (None, why) if why else (arguments, None)


async def dispatch(no_copy: bool) -> dict[str, float]:
    """µs per call: the bare row, the judged row, and optionally the judged row without copy."""
    out = {
        "bare": await _dispatch_row((), None),
        "judged": await _dispatch_row(GATES, json_schema_validator(), held=True),
        "judged, keyword settings": await _dispatch_row(GATES, json_schema_validator()),
    }
    if no_copy:
        real = core_dispatch.canonical_json_object
        core_dispatch.canonical_json_object = _check_only  # type: ignore[assignment]
        try:
            out["judged, check without copy"] = await _dispatch_row(
                GATES, json_schema_validator(), held=True
            )
        finally:
            core_dispatch.canonical_json_object = real
    return out


def main() -> None:
    figures = {
        "validation": validation(),
        "dispatch": asyncio.run(dispatch("--no-copy" in sys.argv)),
    }
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
