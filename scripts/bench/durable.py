"""Durable-execution benchmark: what recording every tool call in DBOS costs.

Run: uv run python scripts/bench/durable.py [--calls 200] [--batch 1000] [--skip-postgres]

1. Per-call overhead of ``durable_dispatch_tool_calls_in_order`` (one call per batch, inside
   one workflow) over plain ``dispatch_tool_call``, on SQLite and on Postgres; peer: the same
   no-op handler as a raw ``DBOS.run_step_async`` step.
2. Throughput of one batch of ``--batch`` short calls through a DBOS queue with one and with two
   worker processes on Postgres; peer: the same number of raw DBOS workflows on a queue.

DBOS keeps one instance per process, so every measurement runs in a child process of this
script. Postgres is a private server (initdb + pg_ctl, Unix socket) started and stopped here.
pydantic-ai's DBOS agent is not measured: its integration needs the ``pydantic-ai[dbos]``
extra and a model, which this offline setup does not provide.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt_ratio, fmt_us, machine_line, markdown_table

QUEUE = "bench-tools"


# ----------------------------------------------------------------------------- children
# Every process registers the same workflows and tool sets at import time, so hosts and workers
# agree on DBOS's application version (workers only dequeue work of their own version).

from dbos import DBOS, SetWorkflowID  # noqa: E402

from prism.core import ToolCall, ToolDefinition, create_tool_registry, dispatch_tool_call  # noqa: E402
from prism.dbos import (  # noqa: E402
    DurableToolset,
    QueueOptions,
    durable_dispatch_tool_calls_in_order,
    launch_dbos,
    register_tool_queue,
    register_toolset,
)


async def _noop(arguments: Any, context: Any) -> str:
    return "ok"


REGISTRY = create_tool_registry(
    [ToolDefinition(name="noop", execute=_noop, parameters={"type": "object"})]
)
QUEUE_OPTIONS = QueueOptions(name=QUEUE, worker_concurrency=16, polling_interval_seconds=0.05)
LOCAL = register_toolset(DurableToolset(name="bench", tools=REGISTRY))
QUEUED = register_toolset(
    DurableToolset(name="bench-q", tools=REGISTRY, tool_concurrency=64, queue=QUEUE_OPTIONS)
)


async def _step() -> str:
    return "ok"


@DBOS.workflow(name="bench.durable")
async def durable_calls(n: int) -> int:
    for i in range(n):
        call = ToolCall(id=f"c{i}", name="noop", arguments={})
        await durable_dispatch_tool_calls_in_order([call], toolset=LOCAL)
    return n


@DBOS.workflow(name="bench.raw")
async def raw_steps(n: int) -> int:
    for _ in range(n):
        await DBOS.run_step_async({"name": "noop"}, _step)
    return n


@DBOS.workflow(name="bench.raw_call")
async def raw_call(i: int) -> str:
    return str(await DBOS.run_step_async({"name": "noop"}, _step))


@DBOS.workflow(name="bench.batch")
async def durable_batch(n: int) -> int:
    calls = [ToolCall(id=f"q{i}", name="noop", arguments={}) for i in range(n)]
    return len(await durable_dispatch_tool_calls_in_order(calls, toolset=QUEUED))


@DBOS.workflow(name="bench.raw_batch")
async def raw_batch(n: int) -> int:
    queue = await DBOS.retrieve_queue_async(QUEUE)
    assert queue is not None
    handles = [await queue.enqueue_async(raw_call, i) for i in range(n)]
    for handle in handles:
        await handle.get_result()
    return n


async def _timed(fn: Any, n: int) -> float:
    with SetWorkflowID(f"bench-{os.urandom(6).hex()}"):
        started = time.perf_counter()
        handle = await DBOS.start_workflow_async(fn, n)
        await handle.get_result()
    return time.perf_counter() - started


async def _overhead(url: str, calls: int) -> dict[str, float]:
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench")
    started = time.perf_counter()
    for i in range(calls):
        await dispatch_tool_call(ToolCall(id=f"p{i}", name="noop", arguments={}), registry=REGISTRY)
    out = {"plain": (time.perf_counter() - started) / calls}
    out["durable"] = await _timed(durable_calls, calls) / calls
    out["raw"] = await _timed(raw_steps, calls) / calls
    DBOS.destroy()
    return out


async def _throughput(url: str, batch: int, raw: bool) -> float:
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench",
                executor_id="bench-host", listen_queues=False)  # fmt: skip
    await register_tool_queue(QUEUE_OPTIONS)
    seconds = await _timed(raw_batch if raw else durable_batch, batch)
    DBOS.destroy()
    return seconds


async def _worker(url: str, executor: str) -> None:
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench",
                executor_id=executor)  # fmt: skip
    await register_tool_queue(QUEUE_OPTIONS)
    await asyncio.sleep(3600)


def _child(args: argparse.Namespace) -> None:
    if args.child == "overhead":
        print(json.dumps(asyncio.run(_overhead(args.url, args.calls))))
    elif args.child == "worker":
        asyncio.run(_worker(args.url, args.executor))
    else:
        print(json.dumps(asyncio.run(_throughput(args.url, args.batch, args.child == "raw"))))


# ----------------------------------------------------------------------------- parent


def _postgres(root: Path) -> tuple[str, list[str]] | None:
    bindir = next((p for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
                   if (p / "initdb").exists()), None)  # fmt: skip
    if bindir is None and shutil.which("initdb"):
        bindir = Path(shutil.which("initdb") or "").resolve().parent
    if bindir is None:
        return None
    user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if user:
        shutil.chown(root, "postgres", "postgres")
    port = random.randint(20_000, 60_000)
    data = root / "data"
    subprocess.run([*user, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A",
                    "trust", "--no-sync"], check=True, capture_output=True)  # fmt: skip
    opts = f"-p {port} -k {root} -c listen_addresses='' -c fsync=off -c max_connections=200"
    subprocess.run([*user, str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l",
                    str(root / "log"), "-w", "start"], check=True, capture_output=True)  # fmt: skip
    stop = [*user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
    return f"postgresql://postgres@localhost:{port}/{{db}}?host={root}", stop


def _run_child(*args: str) -> Any:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                          timeout=1800)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"child {args[:2]} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _throughput_row(url: str, batch: int, workers: int, raw: bool) -> float:
    spawned = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", "worker", "--url", url, "--executor", f"w{i}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(workers)
    ]
    try:
        time.sleep(8)  # workers launched and polling (imports are slow on a busy machine)
        child = "raw" if raw else "batch"
        seconds: float = _run_child("--child", child, "--url", url, "--batch", str(batch))
        return seconds
    finally:
        for p in spawned:
            p.kill()
            p.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument("--child", default=None)
    parser.add_argument("--url", default="")
    parser.add_argument("--executor", default="")
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    tmp = Path(tempfile.mkdtemp(prefix="prism-bench-durable-"))
    try:
        _report(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _report(args: argparse.Namespace, tmp: Path) -> None:
    print(machine_line())
    rows = []
    backends = [("SQLite", f"sqlite:///{tmp / 'bench.sqlite'}")]
    pg_root = Path(tempfile.mkdtemp(prefix="prism-bench-pg-"))  # the server user must reach it
    pg = None if args.skip_postgres else _postgres(pg_root)
    if pg is not None:
        backends.append(("Postgres", pg[0].format(db="bench_overhead")))
    try:
        for label, url in backends:
            f = _run_child("--child", "overhead", "--url", url, "--calls", str(args.calls))
            rows.append([label, fmt_us(f["plain"]), fmt_us(f["durable"]), fmt_us(f["raw"]),
                         fmt_ratio(f["durable"] / f["raw"])])  # fmt: skip
        print("\n### Per-call cost (one call per batch, sequential)\n")
        print(markdown_table(["backend", "plain dispatch µs", "durable dispatch µs",
                              "raw DBOS step µs", "durable / raw DBOS"], rows))  # fmt: skip
        if pg is None:
            print("\n(Postgres binaries not found or --skip-postgres: throughput not measured)")
            return
        trows = []
        for workers in (1, 2):
            ours = _throughput_row(pg[0].format(db=f"bench_q{workers}"), args.batch, workers, False)
            peer = _throughput_row(pg[0].format(db=f"bench_r{workers}"), args.batch, workers, True)
            trows.append([str(workers), f"{args.batch / ours:,.0f}", f"{args.batch / peer:,.0f}",
                          fmt_ratio(ours / peer)])  # fmt: skip
        print(f"\n### Throughput: one batch of {args.batch} short calls on a Postgres queue\n")
        print(markdown_table(["workers", "durable calls/s", "raw DBOS workflows/s",
                              "durable time / raw"], trows))  # fmt: skip
    finally:
        if pg is not None:
            subprocess.run(pg[1], capture_output=True)
        shutil.rmtree(pg_root, ignore_errors=True)


if __name__ == "__main__":
    main()
