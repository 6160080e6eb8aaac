"""Shared helpers for the benchmark scripts: timing loops, medians, markdown tables.

Every bench script measures Prism and the raw peer side by side in one run; these helpers keep
the method (warm-up, interleaved repeats, median) identical across scripts.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

__all__ = [
    "AsyncThunk",
    "fmt_ms",
    "fmt_ratio",
    "fmt_us",
    "interleaved_async",
    "machine_line",
    "markdown_table",
    "median",
    "settle",
    "time_async_calls",
    "verdict",
]

AsyncThunk = Callable[[], Awaitable[object]]


def median(values: Iterable[float]) -> float:
    """The median of ``values`` (the statistic every table reports)."""
    return statistics.median(list(values))


def settle() -> None:
    """Collect garbage before a timed repeat so one subject's garbage is not billed to the next."""
    gc.collect()


async def time_async_calls(fn: AsyncThunk, n: int) -> float:
    """Seconds per call of ``await fn()``, over ``n`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(n):
        await fn()
    return (time.perf_counter() - start) / n


async def interleaved_async(
    subjects: Mapping[str, Callable[[], Awaitable[float]]], repeats: int
) -> dict[str, list[float]]:
    """Run each subject's timed batch once per repeat, round-robin, so load drift hits all alike.

    Each subject callable performs one timed batch and returns its figure (e.g. seconds per call).
    """
    results: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(repeats):
        for name, batch in subjects.items():
            settle()
            results[name].append(await batch())
    return results


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


def machine_line() -> str:
    """Where the figures come from: interpreter, OS and core count."""
    impl = platform.python_implementation()
    version = ".".join(str(v) for v in sys.version_info[:3])
    return f"{impl} {version}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores"
