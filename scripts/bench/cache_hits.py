"""Thread-CPU A/B of cache-hit validation (issue 25): table 1's small/medium/large instances,
valid and invalid, on both engines, µs per call.

Needs only ``prism.jsonschema``, so any checkout's environment runs it, an old one included:
``git worktree add --detach /tmp/base <commit>`` (and ``uv sync --all-packages`` there), then
from this checkout, alternately, ``/tmp/base/.venv/bin/python scripts/bench/cache_hits.py`` and
``uv run python scripts/bench/cache_hits.py`` (each several times); compare each figure's minimum.
``--engine jsonschema-rs`` (or ``fastjsonschema``) measures one engine. Prints one JSON object.
Each figure is the fastest of several rounds of the mean per call, timed with the calling
thread's CPU time, which other processes' load inflates far less than wall time (the same
figures as ``thread_cpu.py``'s ``validation``, without its dispatch imports).
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable

from _validation_cases import SIZES

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

__all__ = ["validation"]

ROUNDS = 7
CALLS = {"small": 20_000, "medium": 2_000, "large": 40}
ENGINES = ("fastjsonschema", "jsonschema-rs")


def _best(run: Callable[[], object], calls: int) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.thread_time()
        for _ in range(calls):
            run()
        best = min(best, (time.thread_time() - started) / calls)
    return best * 1e6


def validation(engines: tuple[str, ...] = ENGINES) -> dict[str, float]:
    """µs per cache-hit validation, by case and engine (each verdict checked first)."""
    out: dict[str, float] = {}
    for size, make in SIZES.items():
        schema, valid, invalid = make()
        for engine in engines:
            options = JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
            validator = JsonSchemaArgumentValidator(options=options)
            for kind, instance in (("valid", valid), ("invalid", invalid)):
                if validator.validate(schema, instance).ok is not (kind == "valid"):
                    raise SystemExit(f"{size} {kind} {engine}: wrong verdict")
                once = functools.partial(validator.validate, schema, instance)
                out[f"{size} {kind} {engine}"] = _best(once, CALLS[size])
    return out


def main() -> None:
    engines = ENGINES
    if "--engine" in sys.argv:
        engines = (sys.argv[sys.argv.index("--engine") + 1],)
    print(json.dumps(validation(engines), indent=1))


if __name__ == "__main__":
    main()
