"""Shared helpers for the benchmark scripts: timing loops, medians, markdown tables.

Every bench script measures Prism and the raw peer side by side in one run; these helpers keep
the method identical across scripts: one untimed warm-up batch per subject, then interleaved
(round-robin) timed batches, reported as the median beside the best batch, under a header that
states the machine and its load.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

_T = TypeVar("_T")

__all__ = [
    "AsyncThunk",
    "Batch",
    "Figures",
    "ImportFigures",
    "Target",
    "baseline_table",
    "bench_parser",
    "cpu_model",
    "fmt_ms",
    "fmt_ratio",
    "fmt_us",
    "header",
    "interleaved_async",
    "interleaved_sync",
    "load_line",
    "machine_line",
    "markdown_table",
    "measure_async",
    "measure_imports",
    "measure_sync",
    "median",
    "settle",
    "summarize",
    "targets_table",
    "time_async_calls",
    "time_calls",
    "verdict",
]

AsyncThunk = Callable[[], Awaitable[object]]
Batch = Callable[[], Awaitable[float]]
"""One timed batch of a subject: returns its figure (seconds per call, per run, per turn)."""
Target = tuple[str, str, bool]
"""A target row: what, the measured figure as text, whether it was met."""

PYCACHE = os.path.join(tempfile.gettempdir(), "prism-bench-pycache")

if sys.dont_write_bytecode:
    # Under PYTHONDONTWRITEBYTECODE every run would recompile the peers (seconds of startup);
    # cache their bytecode in a private prefix instead. Timed regions never import anything.
    sys.dont_write_bytecode = False
    sys.pycache_prefix = PYCACHE


def median(values: Iterable[float]) -> float:
    """The median of ``values`` (the statistic every table reports)."""
    return statistics.median(list(values))


def settle() -> None:
    """Collect garbage before a timed repeat so one subject's garbage is not billed to the next.

    Survivors are frozen, so later collections (timed ones included) do not rescan the peers'
    large import-time heaps: every subject runs against the same small young heap.
    """
    gc.collect()
    gc.freeze()


async def time_async_calls(fn: AsyncThunk, n: int) -> float:
    """Seconds per call of ``await fn()``, over ``n`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(n):
        await fn()
    return (time.perf_counter() - start) / n


def time_calls(fn: Callable[[], object], n: int) -> float:
    """Seconds per call of ``fn()``, over ``n`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


class Figures(NamedTuple):
    """One subject's timed batches, summarised: the median (what tables judge) and the best."""

    median: float
    best: float


def summarize(samples: Mapping[str, Sequence[float]]) -> dict[str, Figures]:
    """Median and best (lowest) figure per subject."""
    return {name: Figures(median(values), min(values)) for name, values in samples.items()}


async def interleaved_async(
    subjects: Mapping[str, Callable[[], Awaitable[float]]], repeats: int
) -> dict[str, list[float]]:
    """Run each subject's timed batch once per repeat, round-robin, so load drift hits all alike.

    Each subject callable performs one timed batch and returns its figure (e.g. seconds per call).
    Each round starts one subject later (see :func:`rotated`), so no subject always runs first.
    """
    results: dict[str, list[float]] = {name: [] for name in subjects}
    for round_ in range(repeats):
        for name, batch in rotated(subjects, round_):
            settle()
            results[name].append(await batch())
    return results


def rotated(subjects: Mapping[str, _T], round_: int) -> list[tuple[str, _T]]:
    """The subjects in round-robin order starting at ``round_ % len(subjects)``: a subject's
    place in the round (first after a GC, right after a noisy neighbour, its server process
    freshly woken) measurably shifts its figure, by up to ~10 % in the MCP bench, so it rotates."""
    items = list(subjects.items())
    start = round_ % len(items) if items else 0
    return items[start:] + items[:start]


def interleaved_sync(
    subjects: Mapping[str, Callable[[], float]], repeats: int
) -> dict[str, list[float]]:
    """The synchronous twin of :func:`interleaved_async`: one batch per subject per repeat."""
    results: dict[str, list[float]] = {name: [] for name in subjects}
    for round_ in range(repeats):
        for name, batch in rotated(subjects, round_):
            settle()
            results[name].append(batch())
    return results


async def measure_async(
    subjects: Mapping[str, Callable[[], Awaitable[float]]], repeats: int, warmups: int = 1
) -> dict[str, Figures]:
    """The method in one call: ``warmups`` untimed batches per subject (caches, lazy imports,
    specialisation), then ``repeats`` interleaved timed batches, summarised."""
    for _ in range(warmups):
        for batch in subjects.values():
            await batch()
    return summarize(await interleaved_async(subjects, repeats))


def measure_sync(
    subjects: Mapping[str, Callable[[], float]], repeats: int, warmups: int = 1
) -> dict[str, Figures]:
    """The synchronous twin of :func:`measure_async`."""
    for _ in range(warmups):
        for batch in subjects.values():
            batch()
    return summarize(interleaved_sync(subjects, repeats))


def fmt_us(seconds: float) -> str:
    """Seconds as microseconds with sensible precision."""
    us = seconds * 1e6
    return f"{us:.2f}" if us < 10 else f"{us:.1f}" if us < 1000 else f"{us:,.0f}"


def fmt_ms(seconds: float) -> str:
    """Seconds as milliseconds."""
    return f"{seconds * 1e3:.2f}"


def fmt_ratio(value: float) -> str:
    """A ratio such as ``0.42×``."""
    return f"{value:.2f}×"


def verdict(ok: bool) -> str:
    """The target column's text."""
    return "met" if ok else "**missed**"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux), or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_line() -> str:
    """The machine's load average now (1, 5 and 15 minutes): shared machines skew figures."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def baseline_table(
    figures: Mapping[str, Figures], base: str, subject: str, *, delta: bool = False
) -> str:
    """µs per call of each subject, median and best batch, each beside the baseline subject's
    (as a ratio, or as a difference in µs when ``delta``)."""
    ref = figures[base]

    def versus(value: float, against: float) -> str:
        return fmt_us(value - against) if delta else fmt_ratio(value / against)

    vs = "Δ vs" if delta else "÷"
    rows = [
        [name, fmt_us(f.median), versus(f.median, ref.median), fmt_us(f.best),
         versus(f.best, ref.best)]
        for name, f in figures.items()
    ]  # fmt: skip
    return markdown_table(
        [subject, "µs/call (median)", f"{vs} {base}", "best batch µs/call", f"best {vs} {base}"],
        rows,
    )


def machine_line() -> str:
    """Where the figures come from: interpreter, OS, CPU model, core count and load now."""
    impl = platform.python_implementation()
    version = ".".join(str(v) for v in sys.version_info[:3])
    return (
        f"{impl} {version}, {platform.system()} {platform.machine()}, {cpu_model()}, "
        f"{os.cpu_count()} cores, {load_line()}"
    )


def header(command: str, detail: str = "") -> str:
    """The line above every report: the exact command, the machine and its load, the method."""
    method = "warm-up batch, then medians of interleaved repeats beside the best batch"
    extra = f"; {detail}" if detail else ""
    return f"Command: `{command}` — {machine_line()}; {method}{extra}.\n"


def bench_parser(
    doc: str | None, quick_help: str = "fewer, shorter rounds (a smoke run)"
) -> argparse.ArgumentParser:
    """The command line every bench shares: its docstring's first line and ``--quick``."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    return parser


def targets_table(targets: Iterable[Target]) -> str:
    """The closing table: every performance target, the figure measured, met or missed."""
    return markdown_table(
        ["target", "measured", "verdict"],
        [[name, value, verdict(ok)] for name, value, ok in targets],
    )


class ImportFigures(NamedTuple):
    """Medians for one module: in-process import seconds, whole-process seconds, and whether
    asyncio / trio ended up in ``sys.modules``."""

    import_seconds: float
    process_seconds: float
    asyncio: bool
    trio: bool


_IMPORT_PROBE = (
    "import sys, time\n"
    "t = time.perf_counter()\n"
    "{statement}\n"
    "d = time.perf_counter() - t\n"
    "print(d, 'asyncio' in sys.modules, 'trio' in sys.modules)\n"
)


def measure_imports(
    statements: Sequence[str], reps: int, warmups: int = 2
) -> dict[str, ImportFigures]:
    """Time each import statement (``"import json"``) in fresh interpreters, interleaved,
    ``reps`` times; medians, keyed by statement.

    Bytecode goes to a private ``PYTHONPYCACHEPREFIX`` warmed by ``warmups`` runs, so no side pays
    compilation and nothing is written beside the sources.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    samples: dict[str, list[tuple[float, float, bool, bool]]] = {s: [] for s in statements}
    with tempfile.TemporaryDirectory(prefix="prism-bench-pycache-") as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for rep in range(reps + warmups):
            for statement in statements:
                start = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-c", _IMPORT_PROBE.format(statement=statement)],
                    env=env, capture_output=True, text=True, check=True,
                )  # fmt: skip
                wall = time.perf_counter() - start
                seconds, has_asyncio, has_trio = out.stdout.split()
                if rep >= warmups:
                    samples[statement].append(
                        (float(seconds), wall, has_asyncio == "True", has_trio == "True")
                    )
    return {
        statement: ImportFigures(
            median(r[0] for r in rows),
            median(r[1] for r in rows),
            any(r[2] for r in rows),
            any(r[3] for r in rows),
        )
        for statement, rows in samples.items()
    }
