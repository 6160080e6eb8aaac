"""Benchmark prism-coding-tools against the raw standard library, side by side in one run.

    uv run --group bench python scripts/bench/coding_tools.py [--quick] [--calls-only]

* shell: 200 MB of output through the ``shell`` tool (asyncio and trio) vs a raw ``os.read``
  loop over a pipe and ``subprocess.run(capture_output=True)``: wall time, throughput and peak
  RSS growth. Each measurement runs in a fresh interpreter so peak RSS is its own.
* read: first page of a 1 MB and a 1 GB text file through the ``read`` tool.
* per call: a short command (``true``) through the ``shell`` tool vs ``subprocess.run``, and a
  small ``write`` / ``edit`` / ``read`` on a file six directories deep: the fixed cost of the
  supervisor and of the race-free (directory fd) file access.

Prints markdown tables (the ones in docs/performance.md), each subject timed in interleaved
batches after a warm-up, medians beside the best batch. Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _common import (
    Batch,
    Figures,
    Target,
    bench_parser,
    header,
    measure_async,
    measure_sync,
    median,
    targets_table,
    time_async_calls,
)

from prism.core import ToolResult

INVOCATION = "uv run --group bench python scripts/bench/coding_tools.py"
TOTAL = 200_000_000
COMMAND = f"yes 'prism benchmark output line 0123456789 abcdefghij' | head -c {TOTAL}"
LINE = b"prism read benchmark line 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQ\n"


async def _execute(tool: Any, arguments: dict[str, Any], context: Any) -> ToolResult:
    """Run a coding tool's handler (sync or async) and return its ``ToolResult``."""
    outcome = tool.execute(arguments, context)
    result = await outcome if inspect.isawaitable(outcome) else outcome
    assert isinstance(result, ToolResult), result
    return result


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


def _measure(name: str) -> dict[str, float]:
    """Run one shell measurement in this (fresh) interpreter; return seconds and RSS growth."""
    import anyio

    from prism.coding_tools import ShellOptions, create_shell_tool
    from prism.core import AbortController, ToolExecutionContext

    spill_dir = tempfile.mkdtemp(prefix="prism-bench-", dir=os.environ.get("PRISM_BENCH_SPILL"))
    tempfile.tempdir = spill_dir
    tool = create_shell_tool(
        spill_dir, options=ShellOptions(max_total_output_bytes=256 * 1024 * 1024)
    )
    context = ToolExecutionContext(
        session_id="bench", run_id="bench", tool_call_id="1", signal=AbortController().signal
    )

    async def through_tool() -> tuple[int, float]:
        await _execute(tool, {"command": "echo warm-up"}, context)  # lazy imports, child watcher
        started = time.perf_counter()
        result = await _execute(tool, {"command": COMMAND}, context)
        seconds = time.perf_counter() - started
        assert not result.is_error, result.error
        return int(str(result.metadata["total_bytes"])), seconds

    def raw_read() -> int:
        process = subprocess.Popen(["bash", "-c", COMMAND], stdout=subprocess.PIPE)
        assert process.stdout is not None
        fd, seen = process.stdout.fileno(), 0
        while chunk := os.read(fd, 65_536):
            seen += len(chunk)
        process.wait()
        return seen

    def capture() -> int:
        return len(subprocess.run(["bash", "-c", COMMAND], capture_output=True, check=True).stdout)

    base = _status_kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # peak RSS restarts from here
    if name in ("asyncio", "trio"):  # timed inside the running event loop
        seen, seconds = anyio.run(through_tool, backend=name)
    else:
        started = time.perf_counter()
        seen = raw_read() if name == "os.read" else capture()
        seconds = time.perf_counter() - started
    assert seen == TOTAL, seen
    growth = (_status_kib("VmHWM") - base) / 1024
    for leftover in Path(spill_dir).iterdir():
        leftover.unlink()
    os.rmdir(spill_dir)
    return {"seconds": seconds, "rss_mib": growth}


def _fresh(name: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", name], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


SHELL_THROUGHPUT, SHELL_RSS_MIB, READ_RATIO = 0.5, 32.0, 2.0
"""Targets: the shell tool's throughput ≥ 0.5x a raw os.read loop with peak RSS growth
≤ 32 MiB; the read tool's first page of a 1 GB file ≤ 2x that of a 1 MB file."""


def shell_table(repeats: int) -> tuple[str, list[Target]]:
    """Each subject in a fresh interpreter per batch, interleaved; median seconds beside the
    best, and the median peak RSS growth; with the shell targets per backend."""
    names = ["os.read", "subprocess.run", "asyncio", "trio"]
    rss: dict[str, list[float]] = {name: [] for name in names}

    def subject(name: str) -> Callable[[], float]:
        def batch() -> float:
            got = _fresh(name)
            rss[name].append(got["rss_mib"])
            return got["seconds"]

        return batch

    figures = measure_sync({name: subject(name) for name in names}, repeats)
    raw = figures["os.read"].median
    rows = [
        "| 200 MB of output | seconds (median) | best | MB/s | throughput vs raw `os.read` "
        "| peak RSS growth |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    labels = {
        "os.read": "raw `os.read` loop (no tail, no spill)",
        "subprocess.run": "`subprocess.run(capture_output=True)`",
        "asyncio": "prism `shell` tool, asyncio (tail + spill file)",
        "trio": "prism `shell` tool, trio (tail + spill file)",
    }
    for name in names:
        sec, best = figures[name]
        rows.append(
            f"| {labels[name]} | {sec:.2f} | {best:.2f} | {TOTAL / sec / 1e6:.0f} "
            f"| {raw / sec:.2f}× | {median(rss[name]):.1f} MiB |"
        )
    goal = (
        f"shell, 200 MB of output: throughput ≥ {SHELL_THROUGHPUT}× a raw `os.read` loop, "
        f"peak RSS growth ≤ {SHELL_RSS_MIB:.0f} MiB"
    )
    targets = [
        (f"{goal} ({backend})",
         f"{raw / figures[backend].median:.2f}× / {median(rss[backend]):.1f} MiB",
         raw / figures[backend].median >= SHELL_THROUGHPUT
         and median(rss[backend]) <= SHELL_RSS_MIB)
        for backend in ("asyncio", "trio")
    ]  # fmt: skip
    return "\n".join(rows), targets


def read_table(iterations: int, repeats: int, big_bytes: int) -> tuple[str, list[Target]]:
    """First page of a 1 MB and a 1 GB file through the ``read`` tool, asyncio and trio; with
    the read target per backend."""
    import anyio

    from prism.coding_tools import create_read_tool
    from prism.core import AbortController, ToolExecutionContext

    with tempfile.TemporaryDirectory(prefix="prism-bench-read-") as directory:
        block = LINE * (1_048_576 // len(LINE) + 1)
        Path(directory, "small.txt").write_bytes(block[:1_048_576])
        with open(Path(directory, "big.txt"), "wb") as f:
            for _ in range(big_bytes // len(block) + 1):
                f.write(block)
        tool = create_read_tool(directory)
        context = ToolExecutionContext(
            session_id="b", run_id="b", tool_call_id="1", signal=AbortController().signal
        )

        async def first_page(name: str) -> None:
            result = await _execute(tool, {"path": name}, context)
            assert "offset=" in str(result.content), result

        def batch(name: str) -> Batch:
            return lambda: time_async_calls(lambda: first_page(name), iterations)

        async def measure() -> dict[str, Figures]:
            return await measure_async({n: batch(n) for n in ("small.txt", "big.txt")}, repeats)

        rows = [
            "| first page (2,000 lines / 50 KiB), median (best) | 1 MB file | 1 GB file "
            "| 1 GB ÷ 1 MB |",
            "| --- | ---: | ---: | ---: |",
        ]
        targets: list[Target] = []
        for backend in ("asyncio", "trio"):
            figures = anyio.run(measure, backend=backend)
            small, big = figures["small.txt"], figures["big.txt"]
            rows.append(
                f"| prism `read` tool, {backend} | {small.median * 1e6:.0f} µs "
                f"({small.best * 1e6:.0f}) | {big.median * 1e6:.0f} µs ({big.best * 1e6:.0f}) "
                f"| {big.median / small.median:.2f}× |"
            )
            ratio = big.median / small.median
            goal = f"`read`, first page of a 1 GB file ≤ {READ_RATIO:.0f}× that of a 1 MB file"
            targets.append((f"{goal} ({backend})", f"{ratio:.2f}×", ratio <= READ_RATIO))
    return "\n".join(rows), targets


def _per_call_subjects(directory: str, iterations: int) -> dict[str, Batch]:
    """Small operations as timed batches: ``true`` through the shell tool (supervised or not)
    and raw, and a ``write`` / ``edit`` / ``read`` on a file six directories deep."""
    import anyio

    from prism.coding_tools import (
        LocalShellOperations,
        ShellOptions,
        create_coding_tools,
        create_shell_tool,
    )
    from prism.core import AbortController, ToolExecutionContext

    deep = Path(directory, "a", "b", "c", "d", "e")
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("one\ntwo\n")
    shell, read, write, edit = create_coding_tools(directory)
    keep = LocalShellOperations(keep_background_processes=True)
    unsupervised = create_shell_tool(directory, options=ShellOptions(operations=keep))
    context = ToolExecutionContext(
        session_id="b", run_id="b", tool_call_id="1", signal=AbortController().signal
    )
    path = "a/b/c/d/e/f.txt"

    def tool_call(tool: Any, arguments: dict[str, Any]) -> Callable[[], Awaitable[None]]:
        async def call() -> None:
            result = await _execute(tool, arguments, context)
            assert not result.is_error, result.error

        return call

    async def raw_true() -> None:
        await anyio.to_thread.run_sync(lambda: subprocess.run(["bash", "-c", "true"]))

    async def do_edit() -> None:
        old, new = ("one", "uno") if "one" in (deep / "f.txt").read_text() else ("uno", "one")
        await tool_call(edit, {"path": path, "edits": [{"old_text": old, "new_text": new}]})()

    few = max(iterations // 4, 1)
    subjects = {
        "`subprocess.run(['bash', '-c', 'true'])` in a thread": (raw_true, few),
        "`shell` tool, `true` (subreaper supervisor, default)": (
            tool_call(shell, {"command": "true"}), few),
        "`shell` tool, `true`, `keep_background_processes=True`": (
            tool_call(unsupervised, {"command": "true"}), few),
        "`write` tool, 8 bytes, 6 levels deep": (
            tool_call(write, {"path": path, "content": "one\ntwo\n"}), iterations),
        "`edit` tool, one replacement": (do_edit, iterations),
        "`read` tool, 2 lines": (tool_call(read, {"path": path}), iterations),
    }  # fmt: skip

    def batch(fn: Callable[[], Awaitable[None]], count: int) -> Batch:
        return lambda: time_async_calls(fn, count)

    return {name: batch(fn, count) for name, (fn, count) in subjects.items()}


def per_call_table(iterations: int, repeats: int) -> str:
    """Seconds per call of small operations, asyncio and trio (interleaved batches)."""
    import anyio

    with tempfile.TemporaryDirectory(prefix="prism-bench-call-") as directory:
        subjects = _per_call_subjects(directory, iterations)
        results = {
            backend: anyio.run(measure_async, subjects, repeats, backend=backend)
            for backend in ("asyncio", "trio")
        }
    rows = [
        f"| per call, median of {repeats} batches (best) | asyncio | trio |",
        "| --- | ---: | ---: |",
    ]
    for name in subjects:
        cells = " | ".join(
            f"{results[b][name].median * 1e3:.2f} ms ({results[b][name].best * 1e3:.2f})"
            for b in ("asyncio", "trio")
        )
        rows.append(f"| {name} | {cells} |")
    return "\n".join(rows)


def main() -> None:
    parser = bench_parser(__doc__, "fewer repeats and iterations (a smoke run)")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--calls-only", action="store_true", help="only the per-call table")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(args.measure)))
        return
    flags = (" --quick" if args.quick else "") + (" --calls-only" if args.calls_only else "")
    print(header(INVOCATION + flags))
    print(per_call_table(40 if args.quick else 400, 2 if args.quick else 5))
    print()
    if args.calls_only:
        return
    shell, shell_targets = shell_table(1 if args.quick else 5)
    print(shell + "\n")
    read, read_targets = read_table(
        50 if args.quick else 500, 2 if args.quick else 5, 1_000_000_000
    )
    print(read + "\n\n**Targets**\n")
    print(targets_table([*shell_targets, *read_targets]))


if __name__ == "__main__":
    main()
