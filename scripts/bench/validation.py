"""JSON Schema validation benchmark: prism-jsonschema next to the raw engines, in one run.

Run: ``uv run --group bench python scripts/bench/validation.py [--quick]``; the schemas and
instances live in ``_validation_cases.py``, the method (warm-up, interleaved rounds, median
beside best) in ``_common.py``.
Prints markdown tables:
1. µs per validation on small / medium / large schemas, valid and invalid instances: our
   validator with each engine (every call after the first is a cache hit), raw fastjsonschema,
   raw jsonschema-rs and ``jsonschema``;
2. what a cache hit costs: by identity, by canonical hash (an equal schema in a new object), and
   the instance-bounds walk alone;
3. compile cost (a cache miss) next to each raw engine's compile;
4. the performance target: cache-hit validation ≤ 1.5× the raw engine on the same instance;
5. the worst legal inputs: a ReDoS pattern on the longest string, the largest enum, the largest
   schema, at the default bounds and at the hard caps (first call = check + compile);
6. the heaviest legal schema/argument pairs within the work budgets (expanded size, validation
   work, pattern input), the outside red-team round's among them: thread CPU time and extra
   memory (traced Python peak) of a cached validation, target ≤ 100 ms and ≤ 64 MiB on both
   engines.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import time
import tracemalloc
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
import jsonschema
import jsonschema_rs
from _common import (
    Figures,
    Target,
    bench_parser,
    fmt_ratio,
    fmt_us,
    header,
    markdown_table,
    measure_sync,
    targets_table,
    time_calls,
)
from _validation_cases import SIZES, budget_cases, worst_cases

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._options import Engine

Thunk = Callable[[], object]
ENGINES: tuple[Engine, ...] = ("fastjsonschema", "jsonschema-rs")
COMMAND = "uv run --group bench python scripts/bench/validation.py"


def raw_fastjsonschema(schema: Any) -> Callable[[Any], bool]:
    validate = fastjsonschema.compile(copy.deepcopy(schema), use_default=False, use_formats=False)

    def check(instance: Any) -> bool:
        try:
            validate(instance)
        except fastjsonschema.JsonSchemaValueException:
            return False
        return True

    return check


def subjects(schema: Any) -> dict[str, Callable[[Any], object]]:
    """name -> one validation of an instance (warm: compiled / cached already)."""
    ours_fast, ours_fast_1 = ours(), ours(max_errors=1)
    ours_rs, ours_rs_1 = ours("jsonschema-rs"), ours("jsonschema-rs", max_errors=1)
    rs = jsonschema_rs.validator_for(schema)
    py = jsonschema.Draft202012Validator(schema)

    def rs_first_error(instance: Any) -> object:
        return rs.is_valid(instance) or next(iter(rs.iter_errors(instance)), None)

    def py_first_error(instance: Any) -> object:
        return next(iter(py.iter_errors(instance)), None)

    return {
        "prism, fastjsonschema engine": lambda i: ours_fast.validate(schema, i),
        "prism, fastjsonschema engine, max_errors=1": lambda i: ours_fast_1.validate(schema, i),
        "raw fastjsonschema": raw_fastjsonschema(schema),
        "prism, jsonschema-rs engine": lambda i: ours_rs.validate(schema, i),
        "prism, jsonschema-rs engine, max_errors=1": lambda i: ours_rs_1.validate(schema, i),
        "raw jsonschema-rs (is_valid, first error)": rs_first_error,
        "jsonschema (Draft202012Validator, first error)": py_first_error,
    }


def measure(thunks: Mapping[str, Thunk], n: int, repeats: int) -> dict[str, Figures]:
    """``_common``'s method on ``n``-call batches of each thunk: seconds per call."""
    return measure_sync(
        {name: (lambda fn=fn: time_calls(fn, n)) for name, fn in thunks.items()}, repeats
    )


def batch_size(fn: Thunk, budget_seconds: float) -> int:
    """Calls per batch so that one batch takes about ``budget_seconds``."""
    once = time_calls(fn, 3)
    return max(5, min(20_000, int(budget_seconds / max(once, 1e-7))))


def ours(engine: Engine = "fastjsonschema", *, max_errors: int = 8) -> JsonSchemaArgumentValidator:
    """A Prism validator on ``engine``."""
    options = JsonSchemaValidatorOptions(engine=engine, max_errors=max_errors)
    return JsonSchemaArgumentValidator(options=options)


def validation_table(
    quick: bool,
) -> tuple[str, list[Target], dict[str, dict[str, float]]]:
    """Table 1 and the targets; also returns the raw figures for the summary."""
    repeats = 5 if quick else 15
    rows: list[list[str]] = []
    targets: list[Target] = []
    figures: dict[str, dict[str, float]] = {}
    for size, make in SIZES.items():
        schema, valid, invalid = make()
        fns = subjects(schema)
        for label, instance in (("valid", valid), ("invalid", invalid)):
            thunks: dict[str, Thunk] = {
                name: (lambda fn=fn, i=instance: fn(i)) for name, fn in fns.items()
            }
            n = batch_size(thunks["raw fastjsonschema"], 0.01 if quick else 0.03)
            measured = measure(thunks, n, repeats)
            us = {name: f.median for name, f in measured.items()}
            best = {name: f.best for name, f in measured.items()}
            figures[f"{size} {label}"] = us
            fast = us["prism, fastjsonschema engine"] / us["raw fastjsonschema"]
            fast_1 = us["prism, fastjsonschema engine, max_errors=1"] / us["raw fastjsonschema"]
            raw_rs = us["raw jsonschema-rs (is_valid, first error)"]
            rs = us["prism, jsonschema-rs engine"] / raw_rs
            rs_1 = us["prism, jsonschema-rs engine, max_errors=1"] / raw_rs
            rows.append([
                f"{size}, {label}",
                fmt_us(us["raw fastjsonschema"]), fmt_us(us["prism, fastjsonschema engine"]),
                fmt_ratio(fast), fmt_ratio(fast_1),
                fmt_us(raw_rs), fmt_us(us["prism, jsonschema-rs engine"]),
                fmt_ratio(rs), fmt_ratio(rs_1),
                fmt_us(us["jsonschema (Draft202012Validator, first error)"]),
            ])  # fmt: skip
            suffix = "" if label == "valid" else ", max_errors=1"
            ours_fast = "prism, fastjsonschema engine" + suffix
            ours_rs = "prism, jsonschema-rs engine" + suffix
            judged_fast = us[ours_fast] / us["raw fastjsonschema"]
            judged_rs = us[ours_rs] / raw_rs
            best_fast = best[ours_fast] / best["raw fastjsonschema"]
            best_rs = best[ours_rs] / best["raw jsonschema-rs (is_valid, first error)"]
            note = "" if label == "valid" else " (max_errors=1 vs the raw first error)"
            targets.append((f"cache hit ≤ 1.5× raw fastjsonschema, {size}, {label}{note}",
                            f"{fmt_ratio(judged_fast)} (best batches {fmt_ratio(best_fast)})",
                            judged_fast <= 1.5))  # fmt: skip
            targets.append((f"cache hit ≤ 1.5× raw jsonschema-rs, {size}, {label}{note}",
                            f"{fmt_ratio(judged_rs)} (best batches {fmt_ratio(best_rs)})",
                            judged_rs <= 1.5))  # fmt: skip
    headers = [
        "schema, instance", "raw fastjsonschema µs", "prism (fastjsonschema) µs", "÷ raw",
        "÷ raw, max_errors=1", "raw jsonschema-rs µs", "prism (jsonschema-rs) µs", "÷ raw",
        "÷ raw, max_errors=1", "jsonschema µs",
    ]  # fmt: skip
    return markdown_table(headers, rows), targets, figures


def cache_hit_table(quick: bool) -> str:
    """Table 2: identity hit vs canonical-hash hit vs the instance walk alone."""
    repeats = 5 if quick else 15
    rows: list[list[str]] = []
    for size, make in SIZES.items():
        schema, valid, _ = make()
        for engine in ENGINES:
            validator = ours(engine)
            validator.validate(schema, valid)
            copies = [copy.deepcopy(schema) for _ in range(64)]
            cursor = iter(range(1 << 62))

            def by_hash(
                v: Any = validator, c: list[Any] = copies, k: Any = cursor, i: Any = valid
            ) -> object:
                return v.validate(c[next(k) % 64], i)

            if engine == "jsonschema-rs":
                bounds = validator._rs_bounds(validator.options.max_string_length).is_valid
                alone: Thunk = lambda b=bounds, i=valid: b(i)  # noqa: E731
            else:
                alone = lambda w=validator._bounds.walk, i=valid: w(i, 1)  # noqa: E731
            thunks: dict[str, Thunk] = {
                "identity hit": lambda v=validator, s=schema, i=valid: v.validate(s, i),
                "hash hit (equal schema, new object)": by_hash,
                "instance-bounds check alone": alone,
            }
            n = batch_size(thunks["hash hit (equal schema, new object)"], 0.02)
            us = {name: f.median for name, f in measure(thunks, n, repeats).items()}
            rows.append([f"{size}, {engine}"] + [fmt_us(us[name]) for name in thunks])
    headers = ["schema, engine", "identity hit µs", "hash hit µs (walk + hash, no compile)",
               "instance-bounds check alone µs"]  # fmt: skip
    return markdown_table(headers, rows)


def compile_table(quick: bool) -> str:
    """Table 3: a cache miss (checks + compile) next to each raw engine's compile."""
    repeats = 3 if quick else 7
    rows: list[list[str]] = []
    for size, make in SIZES.items():
        schema, _valid, _ = make()
        thunks: dict[str, Thunk] = {
            "prism fastjsonschema": lambda s=schema: ours().validate(s, {}),
            "prism fastjsonschema, max_errors=1": lambda s=schema: ours(max_errors=1).validate(
                s, {}
            ),
            "raw fastjsonschema": lambda s=schema: fastjsonschema.compile(
                json.loads(json.dumps(s)), use_default=False
            ),
            "prism jsonschema-rs": lambda s=schema: ours("jsonschema-rs").validate(s, {}),
            "raw jsonschema-rs": lambda s=schema: jsonschema_rs.validator_for(s),
            "jsonschema": lambda s=schema: jsonschema.Draft202012Validator(s).is_valid({}),
        }
        n = 3 if quick else 10
        us = {name: f.median for name, f in measure(thunks, n, repeats).items()}
        rows.append([size] + [f"{us[name] * 1e3:.2f}" for name in thunks])
    headers = [
        "schema",
        *(
            f"{name} ms"
            for name in (
                "prism fastjsonschema",
                "prism fastjsonschema, max_errors=1",
                "raw fastjsonschema",
                "prism jsonschema-rs",
                "raw jsonschema-rs",
                "jsonschema (construct + first call)",
            )
        ),
    ]
    return markdown_table(headers, rows)


def _outcome(result: Any) -> str:
    if result.ok:
        return "valid"
    message: str = result.errors[0].message
    if message.startswith("tool parameter schema rejected"):
        bound = next((w for w in message.replace(",", " ").split() if w.startswith("max_")), "")
        return f"refused ({bound.split('=')[0] or 'schema'})"
    return "invalid"


def worst_case_table() -> str:
    """Table 5: the first call (check + compile) and a cached call on the worst legal inputs."""
    rows: list[list[str]] = []
    for label, schema, instance, caps in worst_cases():
        for engine in ENGINES:
            options = JsonSchemaValidatorOptions(engine=engine, max_errors=1)
            validator = JsonSchemaArgumentValidator(options=dataclasses.replace(options, **caps))
            started = time.perf_counter()
            first = validator.validate(schema, instance)
            middle = time.perf_counter()
            validator.validate(schema, instance)
            ended = time.perf_counter()
            rows.append([
                label, engine, _outcome(first), f"{(middle - started) * 1e3:,.1f}",
                f"{(ended - middle) * 1e3:,.2f}", f"{validator.cache_bytes() / 1e6:.1f}",
            ])  # fmt: skip
    raw = fastjsonschema.compile({"pattern": "^(a+)+$"})
    started = time.perf_counter()
    try:
        raw("a" * 22 + "!")
    except fastjsonschema.JsonSchemaValueException:
        pass
    rows.append([
        "ReDoS ^(a+)+$, 22 chars + '!'", "raw fastjsonschema (re)", "invalid",
        "", f"{(time.perf_counter() - started) * 1e3:,.2f}", "",
    ])  # fmt: skip
    headers = ["worst legal input", "engine", "outcome", "first call ms (check + compile)",
               "cached call ms", "cache MB (estimate)"]  # fmt: skip
    return markdown_table(headers, rows)


def budget_table() -> tuple[str, list[Target]]:
    """Table 6: CPU and memory of the heaviest legal pairs (cached: the compile is table 5)."""
    rows: list[list[str]] = []
    targets: list[Target] = []
    for label, schema, instance in budget_cases():
        for engine in ENGINES:
            validator = JsonSchemaArgumentValidator(
                options=JsonSchemaValidatorOptions(engine=engine)
            )
            validator.validate(schema, {})  # compiled: only the validation is measured
            outcome = _outcome(validator.validate(schema, instance))
            thunk = functools.partial(validator.validate, schema, instance)
            cpu = min(_cpu(thunk) for _ in range(5))
            peak = _peak_bytes(thunk)
            rows.append([label, engine, outcome, f"{cpu * 1e3:,.1f}", f"{peak / 2**20:,.2f}"])
            ok = cpu <= 0.1 and peak <= 64 * 2**20 and not outcome.startswith("refused")
            targets.append((f"heaviest legal pair ≤ 100 ms, ≤ 64 MiB: {label}", engine, ok))
    headers = ["pair (default budgets)", "engine", "outcome", "CPU ms", "extra MiB (Python)"]
    return markdown_table(headers, rows), targets


def _cpu(thunk: Thunk) -> float:
    """CPU seconds of this thread (the engines validate in the calling thread)."""
    started = time.thread_time()
    thunk()
    return time.thread_time() - started


def _peak_bytes(thunk: Thunk) -> int:
    """Peak Python allocation during ``thunk`` (jsonschema-rs's Rust heap is not seen)."""
    tracemalloc.start()
    try:
        thunk()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    args = bench_parser(__doc__).parse_args()
    started = time.perf_counter()
    table, targets, _ = validation_table(args.quick)
    print(header(COMMAND + (" --quick" if args.quick else "")))
    print("**1. µs per validation (every Prism call after the first is a cache hit)**\n")
    print(table)
    print("\n**2. What a cache hit costs**\n")
    print(cache_hit_table(args.quick))
    print("\n**3. Compile cost (a cache miss), ms per schema**\n")
    print(compile_table(args.quick))
    print("\n**5. Worst legal inputs (max_errors=1, one run each)**\n")
    print(worst_case_table())
    print("\n**6. Heaviest legal pairs within the budgets (a cached validation)**\n")
    table6, found = budget_table()
    print(table6)
    print("\n**Targets**\n")
    print(targets_table([*targets, *found]))
    print(f"\n({time.perf_counter() - started:.0f} s of measuring)")


if __name__ == "__main__":
    main()
