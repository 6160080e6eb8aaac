"""Benchmark prism-coding-tools against the raw standard library, side by side in one run.

    uv run --group bench python scripts/bench/coding_tools.py [--quick]

* shell: 200 MB of output through the ``shell`` tool (asyncio and trio) vs a raw ``os.read``
  loop over a pipe and ``subprocess.run(capture_output=True)``: wall time, throughput and peak
  RSS growth. Each measurement runs in a fresh interpreter so peak RSS is its own.
* read: first page of a 1 MB and a 1 GB text file through the ``read`` tool.
* per call: a short command (``true``) through the ``shell`` tool vs ``subprocess.run``, and a
  small ``write`` / ``edit`` / ``read`` on a file six directories deep: the fixed cost of the
  supervisor and of the race-free (directory fd) file access.

Prints markdown tables (the ones in docs/performance.md). Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOTAL = 200_000_000
COMMAND = f"yes 'prism benchmark output line 0123456789 abcdefghij' | head -c {TOTAL}"
LINE = b"prism read benchmark line 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQ\n"


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
        await tool.execute({"command": "echo warm-up"}, context)  # lazy imports, child watcher
        started = time.perf_counter()
        result = await tool.execute({"command": COMMAND}, context)
        seconds = time.perf_counter() - started
        assert not result.is_error, result.error
        return int(result.metadata["total_bytes"]), seconds  # type: ignore[call-overload]

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


def shell_table(repeats: int) -> str:
    names = ["os.read", "subprocess.run", "asyncio", "trio"]
    best: dict[str, dict[str, float]] = {}
    for _ in range(repeats):
        for name in names:
            got = _fresh(name)
            if name not in best or got["seconds"] < best[name]["seconds"]:
                best[name] = got
    raw = best["os.read"]["seconds"]
    rows = [
        "| 200 MB of output | seconds | MB/s | throughput vs raw `os.read` | peak RSS growth |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    labels = {
        "os.read": "raw `os.read` loop (no tail, no spill)",
        "subprocess.run": "`subprocess.run(capture_output=True)`",
        "asyncio": "prism `shell` tool, asyncio (tail + spill file)",
        "trio": "prism `shell` tool, trio (tail + spill file)",
    }
    for name in names:
        sec, rss = best[name]["seconds"], best[name]["rss_mib"]
        rows.append(
            f"| {labels[name]} | {sec:.2f} | {TOTAL / sec / 1e6:.0f} | {raw / sec:.2f}× "
            f"| {rss:.1f} MiB |"
        )
    return "\n".join(rows)


def read_table(iterations: int, big_bytes: int) -> str:
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

        async def per_call(name: str) -> float:
            for _ in range(20):  # warm-up (page cache, thread pool)
                await tool.execute({"path": name}, context)
            started = time.perf_counter()
            for _ in range(iterations):
                result = await tool.execute({"path": name}, context)
            assert "offset=" in str(result.content[0].text)  # type: ignore[union-attr]
            return (time.perf_counter() - started) / iterations

        rows = [
            "| first page (2,000 lines / 50 KiB) | 1 MB file | 1 GB file | 1 GB ÷ 1 MB |",
            "| --- | ---: | ---: | ---: |",
        ]
        for backend in ("asyncio", "trio"):
            small = anyio.run(per_call, "small.txt", backend=backend)
            big = anyio.run(per_call, "big.txt", backend=backend)
            rows.append(
                f"| prism `read` tool, {backend} | {small * 1e6:.0f} µs | {big * 1e6:.0f} µs "
                f"| {big / small:.2f}× |"
            )
    return "\n".join(rows)


def per_call_table(iterations: int) -> str:
    """Median seconds per call of small operations, asyncio and trio."""
    import anyio

    from prism.coding_tools import (
        LocalShellOperations,
        ShellOptions,
        create_coding_tools,
        create_shell_tool,
    )
    from prism.core import AbortController, ToolExecutionContext

    with tempfile.TemporaryDirectory(prefix="prism-bench-call-") as directory:
        deep = Path(directory, "a", "b", "c", "d", "e")
        deep.mkdir(parents=True)
        shell, read, write, edit = create_coding_tools(directory)
        keep = LocalShellOperations(keep_background_processes=True)
        unsupervised = create_shell_tool(directory, options=ShellOptions(operations=keep))
        context = ToolExecutionContext(
            session_id="b", run_id="b", tool_call_id="1", signal=AbortController().signal
        )
        path = "a/b/c/d/e/f.txt"

        async def run_true() -> None:
            result = await shell.execute({"command": "true"}, context)
            assert not result.is_error, result.error

        async def run_true_unsupervised() -> None:
            result = await unsupervised.execute({"command": "true"}, context)
            assert not result.is_error, result.error

        async def raw_true() -> None:
            await anyio.to_thread.run_sync(lambda: subprocess.run(["bash", "-c", "true"]))

        async def do_write() -> None:
            result = await write.execute({"path": path, "content": "one\ntwo\n"}, context)
            assert not result.is_error, result.error

        async def do_edit() -> None:
            old, new = ("one", "uno") if "one" in (deep / "f.txt").read_text() else ("uno", "one")
            edits = [{"old_text": old, "new_text": new}]
            result = await edit.execute({"path": path, "edits": edits}, context)
            assert not result.is_error, result.error

        async def do_read() -> None:
            result = await read.execute({"path": path}, context)
            assert not result.is_error, result.error

        subjects = {
            "`subprocess.run(['bash', '-c', 'true'])` in a thread": (raw_true, iterations // 4),
            "`shell` tool, `true` (subreaper supervisor, default)": (run_true, iterations // 4),
            "`shell` tool, `true`, `keep_background_processes=True`": (
                run_true_unsupervised,
                iterations // 4,
            ),
            "`write` tool, 8 bytes, 6 levels deep": (do_write, iterations),
            "`edit` tool, one replacement": (do_edit, iterations),
            "`read` tool, 2 lines": (do_read, iterations),
        }

        async def measure() -> dict[str, float]:
            await do_write()
            times: dict[str, list[float]] = {name: [] for name in subjects}
            for _ in range(5):
                for name, (fn, count) in subjects.items():
                    await fn()  # warm-up
                    started = time.perf_counter()
                    for _ in range(max(count, 1)):
                        await fn()
                    times[name].append((time.perf_counter() - started) / max(count, 1))
            return {name: sorted(values)[len(values) // 2] for name, values in times.items()}

        results = {backend: anyio.run(measure, backend=backend) for backend in ("asyncio", "trio")}
    rows = ["| per call (median of 5 batches) | asyncio | trio |", "| --- | ---: | ---: |"]
    for name in subjects:
        cells = " | ".join(f"{results[b][name] * 1e3:.2f} ms" for b in ("asyncio", "trio"))
        rows.append(f"| {name} | {cells} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer read iterations")
    parser.add_argument("--calls-only", action="store_true", help="only the per-call table")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(args.measure)))
        return
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print(per_call_table(100 if args.quick else 400))
    print()
    if args.calls_only:
        return
    print(shell_table(1 if args.quick else 5))
    print()
    print(read_table(100 if args.quick else 500, 1_000_000_000))


if __name__ == "__main__":
    main()
