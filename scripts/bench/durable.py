"""Durable-execution benchmark: what recording every tool call in DBOS costs.

Run: ``uv run python scripts/bench/durable.py [--quick] [--calls 200] [--batch 1000]
[--repeats 5] [--skip-postgres]``. Every figure is the median of interleaved batches after a
warm-up batch, the best batch beside it.

1. A one-call agent turn as an agent runs it (``DurableAgent``: the recorded model request
   that produced the call, then the call; ``TURNS`` turns per run), on SQLite and on Postgres;
   peer: the same work with DBOS directly (a raw model step, then a raw tool step). Beside it
   the raw DBOS step alone, and per call: ``durable_dispatch_tool_calls_in_order`` of one call
   in a host's own workflow (no model step: the batch records its own ``started`` marker), and
   one batch of ``BATCH`` calls (one at a time, and 64 at a time; side-effecting and
   read-only). Every subject also reports its database commits per call (a SQLAlchemy commit
   listener) and, on SQLite, its ``fdatasync`` calls per call (``strace -f -c`` of a child that
   runs one batch of it, minus a child that only launches): figures that do not move with the
   machine's load.
2. Throughput of one batch of ``--batch`` short calls through a DBOS queue with one and with two
   worker processes on Postgres; peer: the same number of raw DBOS workflows on the same queue,
   served by the same workers, batches interleaved.

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
from _common import (
    Batch,
    Figures,
    bench_parser,
    fmt_ratio,
    fmt_us,
    header,
    markdown_table,
    measure_async,
    targets_table,
    time_async_calls,
)

QUEUE = "bench-tools"
BATCH = 100
TURNS = 10
"""One-call turns per agent run (then a final answer); per-turn figures divide by it."""
COMMAND = "uv run python scripts/bench/durable.py"


# ----------------------------------------------------------------------------- children
# Every process registers the same workflows and tool sets at import time, so hosts and workers
# agree on DBOS's application version (workers only dequeue work of their own version).

from dbos import DBOS, SetWorkflowID  # noqa: E402

from prism.core import (  # noqa: E402
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.core.agent import ModelRequest, ModelResponse  # noqa: E402
from prism.dbos import (  # noqa: E402
    DurableAgent,
    DurableToolset,
    QueueOptions,
    durable_dispatch_tool_calls_in_order,
    launch_dbos,
    register_tool_queue,
    register_toolset,
)


async def _noop(arguments: Any, context: Any) -> str:
    return "ok"


REGISTRY = ToolRegistry(
    [
        ToolDefinition(name="noop", execute=_noop, parameters={"type": "object"}),
        ToolDefinition(name="peek", execute=_noop, parameters={"type": "object"}, read_only=True),
    ]
)
QUEUE_OPTIONS = QueueOptions(name=QUEUE, worker_concurrency=16, polling_interval_seconds=0.05)
LOCAL = register_toolset(DurableToolset(name="bench", tools=REGISTRY))
WIDE = register_toolset(DurableToolset(name="bench-wide", tools=REGISTRY, tool_concurrency=64))
QUEUED = register_toolset(
    DurableToolset(name="bench-q", tools=REGISTRY, tool_concurrency=64, queue=QUEUE_OPTIONS)
)


class _TurnModel:
    """A scripted model: ``TURNS`` turns of one side-effecting call, then a final text."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        turn = sum(1 for m in request.messages if getattr(m, "role", "") == "assistant")
        if turn < TURNS:
            return ModelResponse(tool_calls=(ToolCall(id=f"a{turn}", name="noop", arguments={}),))
        return ModelResponse(content=(TextContent(text="done"),))


AGENT = DurableAgent(name="bench-agent", provider=_TurnModel(), model="scripted",
                     tools=[REGISTRY.get("noop")])  # fmt: skip


async def _step() -> str:
    return "ok"


async def _model_step(turn: int) -> dict[str, Any]:
    """The raw peer's model request: a response naming one call (what the model step records)."""
    return {"content": [], "tool_calls": [{"id": f"a{turn}", "name": "noop", "arguments": {}}]}


@DBOS.workflow(name="bench.raw_turns")
async def raw_turns(runs: int) -> int:
    """The same work as ``runs`` agent runs with DBOS directly: per turn a model step, then a
    tool step; a final model step per run (each run is a workflow of its own on our side)."""
    for turn in range(TURNS):
        await DBOS.run_step_async({"name": "model"}, _model_step, turn)
        await DBOS.run_step_async({"name": "noop"}, _step)
    await DBOS.run_step_async({"name": "model"}, _model_step, TURNS)
    return runs


@DBOS.workflow(name="bench.durable")
async def durable_calls(n: int) -> int:
    for i in range(n):
        call = ToolCall(id=f"c{i}", name="noop", arguments={})
        await durable_dispatch_tool_calls_in_order([call], toolset=LOCAL)
    return n


@DBOS.workflow(name="bench.durable_ro")
async def durable_read_only(n: int) -> int:
    for i in range(n):
        call = ToolCall(id=f"r{i}", name="peek", arguments={})
        await durable_dispatch_tool_calls_in_order([call], toolset=LOCAL)
    return n


@DBOS.workflow(name="bench.turn")
async def durable_turn(n: int, tool: str, wide: bool) -> int:
    calls = [ToolCall(id=f"t{i}", name=tool, arguments={}) for i in range(n)]
    return len(await durable_dispatch_tool_calls_in_order(calls, toolset=WIDE if wide else LOCAL))


@DBOS.workflow(name="bench.raw")
async def raw_steps(n: int) -> int:
    for _ in range(n):
        await DBOS.run_step_async({"name": "noop"}, _step)
    return n


@DBOS.workflow(name="bench.raw_wide")
async def raw_wide(n: int) -> int:
    """``n`` raw steps, 64 at a time (the peer of a batch that runs 64 calls at once)."""
    gate = asyncio.Semaphore(64)

    async def one() -> None:
        async with gate:
            await DBOS.run_step_async({"name": "noop"}, _step)

    await asyncio.gather(*(one() for _ in range(n)))
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


def _workflow_batch(fn: Any, n: int, per: int, *extra: object) -> Batch:
    """A batch: one workflow of ``n`` (run to completion); its figure is seconds per ``per``."""

    async def batch() -> float:
        with SetWorkflowID(f"bench-{os.urandom(6).hex()}"):
            started = time.perf_counter()
            handle = await DBOS.start_workflow_async(fn, n, *extra)
            await handle.get_result()
        return (time.perf_counter() - started) / per

    return batch


def _agent_batch(runs: int) -> Batch:
    """A batch: ``runs`` durable agent runs of ``TURNS`` one-call turns; seconds per turn."""

    async def batch() -> float:
        started = time.perf_counter()
        for _ in range(runs):
            result = await AGENT.run("go", run_id=f"bench-{os.urandom(6).hex()}")
            assert result.status == "succeeded", result
        return (time.perf_counter() - started) / (runs * TURNS)

    return batch


def _raw_turn_batch(runs: int) -> Batch:
    """A batch: ``runs`` workflows doing the agent runs' work with raw steps; per turn."""

    async def batch() -> float:
        started = time.perf_counter()
        for _ in range(runs):
            with SetWorkflowID(f"bench-{os.urandom(6).hex()}"):
                handle = await DBOS.start_workflow_async(raw_turns, 1)
            await handle.get_result()
        return (time.perf_counter() - started) / (runs * TURNS)

    return batch


def _plain_batch(calls: int) -> Batch:
    async def dispatch_all() -> None:
        for i in range(calls):
            await dispatch_tool_call(ToolCall(id=f"p{i}", name="noop", arguments={}),
                                     registry=REGISTRY)  # fmt: skip

    async def batch() -> float:
        return await time_async_calls(dispatch_all, 1) / calls

    return batch


def _as_json(figures: dict[str, Figures]) -> str:
    return json.dumps({name: list(f) for name, f in figures.items()})


def _subjects(calls: int) -> dict[str, tuple[Batch, int]]:
    """Every subject of the overhead run: its batch and how many calls (turns) it covers."""
    runs = max(1, calls // TURNS)
    return {
        "plain": (_plain_batch(calls), calls),
        "agent": (_agent_batch(runs), runs * TURNS),
        "raw_turn": (_raw_turn_batch(runs), runs * TURNS),
        "durable": (_workflow_batch(durable_calls, calls, calls), calls),
        "durable_ro": (_workflow_batch(durable_read_only, calls, calls), calls),
        "turn": (_workflow_batch(durable_turn, BATCH, BATCH, "noop", False), BATCH),
        "turn_wide": (_workflow_batch(durable_turn, BATCH, BATCH, "noop", True), BATCH),
        "turn_ro": (_workflow_batch(durable_turn, BATCH, BATCH, "peek", False), BATCH),
        "raw": (_workflow_batch(raw_steps, calls, calls), calls),
        "raw_wide": (_workflow_batch(raw_wide, BATCH, BATCH), BATCH),
    }


class _Commits:
    """Counts database commits of every SQLAlchemy engine in this process (DBOS's included)."""

    def __init__(self) -> None:
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        self.count = 0
        event.listen(Engine, "commit", self._commit)

    def _commit(self, conn: object) -> None:
        self.count += 1


async def _overhead(url: str, calls: int, repeats: int) -> dict[str, Figures]:
    """Seconds per call of every subject, interleaved; then commits per call of each (one more
    batch each, counted; reported as ``<name>:commits`` figures)."""
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench")
    subjects = _subjects(calls)
    figures = await measure_async({name: batch for name, (batch, _) in subjects.items()}, repeats)
    commits = _Commits()
    for name, (batch, units) in subjects.items():
        before = commits.count
        await batch()
        per = (commits.count - before) / units
        figures[f"{name}:commits"] = Figures(per, per)
    DBOS.destroy()
    return figures


async def _one_batch(url: str, calls: int, subject: str) -> None:
    """Launch, then run one batch of ``subject`` (``none``: launch only); for ``strace``."""
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench")
    if subject != "none":
        await _subjects(calls)[subject][0]()
    DBOS.destroy()


async def _throughput(url: str, batch: int, repeats: int) -> dict[str, Figures]:
    """Seconds per batch of ``batch`` queued calls, durable and raw, interleaved."""
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench",
                executor_id="bench-host", listen_queues=False)  # fmt: skip
    await register_tool_queue(QUEUE_OPTIONS)
    subjects = {
        "durable": _workflow_batch(durable_batch, batch, 1),
        "raw": _workflow_batch(raw_batch, batch, 1),
    }
    figures = await measure_async(subjects, repeats)
    DBOS.destroy()
    return figures


async def _worker(url: str, executor: str) -> None:
    launch_dbos(app_name="prism-bench", database_url=url, app_version="bench",
                executor_id=executor)  # fmt: skip
    await register_tool_queue(QUEUE_OPTIONS)
    await asyncio.sleep(3600)


def _child(args: argparse.Namespace) -> None:
    if args.child == "overhead":
        print(_as_json(asyncio.run(_overhead(args.url, args.calls, args.repeats))))
    elif args.child == "one":
        asyncio.run(_one_batch(args.url, args.calls, args.subject))
    elif args.child == "worker":
        asyncio.run(_worker(args.url, args.executor))
    else:
        print(_as_json(asyncio.run(_throughput(args.url, args.batch, args.repeats))))


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


def _run_child(*args: str) -> dict[str, Figures]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                          timeout=1800)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"child {args[:2]} failed:\n{done.stderr[-3000:]}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: Figures(*values) for name, values in raw.items()}


def _throughput_figures(url: str, batch: int, workers: int, repeats: int) -> dict[str, Figures]:
    """Durable and raw batches on one queue served by ``workers`` worker processes."""
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
        return _run_child("--child", "throughput", "--url", url, "--batch", str(batch),
                          "--repeats", str(repeats))  # fmt: skip
    finally:
        for p in spawned:
            p.kill()
            p.wait()


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--calls", type=int, default=None, help="calls per overhead batch (200)")
    parser.add_argument("--batch", type=int, default=None, help="calls per queued batch (1000)")
    parser.add_argument("--repeats", type=int, default=None, help="timed batches (5)")
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--executor", default="", help=argparse.SUPPRESS)
    parser.add_argument("--subject", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.calls = args.calls or (30 if args.quick else 200)
    args.batch = args.batch or (100 if args.quick else 1000)
    args.repeats = args.repeats or (2 if args.quick else 5)
    if args.child:
        _child(args)
        return
    tmp = Path(tempfile.mkdtemp(prefix="prism-bench-durable-"))
    try:
        _report(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _overhead_table(args: argparse.Namespace, backends: list[tuple[str, str]], tmp: Path) -> str:
    rows, targets = [], []
    for label, url in backends:
        f = _run_child("--child", "overhead", "--url", url, "--calls", str(args.calls),
                       "--repeats", str(args.repeats))  # fmt: skip
        syncs = _syncs(tmp, args.calls) if label == "SQLite" else {}
        for name, what, peer in _SUBJECTS:
            ours, theirs = f[name], f[peer]
            writes = f"{f[name + ':commits'].median:.2f} / {f[peer + ':commits'].median:.2f}"
            synced = (f"{syncs[name]:.1f} / {syncs[peer]:.1f}"
                      if name in syncs and peer in syncs else "–")  # fmt: skip
            rows.append([label, what, fmt_us(ours.median), _PEERS[peer], fmt_us(theirs.median),
                         fmt_ratio(ours.median / theirs.median),
                         fmt_ratio(ours.best / theirs.best), writes, synced])  # fmt: skip
        for name, what, peer, bound in _TARGETS:
            ratio = f[name].median / f[peer].median
            targets.append((f"{label}: {what} ÷ {_PEERS[peer]} ≤ {bound}×", fmt_ratio(ratio),
                            ratio <= bound))  # fmt: skip
    table = markdown_table(["backend", "durable subject", "µs per call", "peer", "peer µs",
                            "durable / peer", "best batches", "commits per call (ours / peer)",
                            "fdatasync per call (ours / peer)"], rows)  # fmt: skip
    return table + "\n\n" + targets_table(targets)


def _syncs(tmp: Path, calls: int) -> dict[str, float]:
    """``fdatasync``/``fsync`` calls per call of each subject on a fresh SQLite file (a child
    under ``strace -f -c`` runs one batch of it; a child that only launches is subtracted)."""
    if shutil.which("strace") is None:
        return {}
    units = {name: n for name, (_, n) in _subjects(calls).items()}
    counts: dict[str, int] = {}
    for subject in ["none", *units]:
        out = tmp / f"strace-{subject}.txt"
        url = f"sqlite:///{tmp / f'syncs-{subject}.sqlite'}"
        subprocess.run(["strace", "-f", "-c", "-e", "trace=fdatasync,fsync", "-o", str(out),
                        sys.executable, __file__, "--child", "one", "--url", url, "--calls",
                        str(calls), "--subject", subject],
                       check=True, capture_output=True, timeout=1800)  # fmt: skip
        counts[subject] = sum(
            int(line.split()[3]) for line in out.read_text().splitlines()
            if line.split()[-1:] in (["fdatasync"], ["fsync"])
        )  # fmt: skip
    return {name: (counts[name] - counts["none"]) / n for name, n in units.items()}


_PEERS = {
    "raw_turn": "raw model step + raw tool step",
    "raw": "raw DBOS step",
    "raw_wide": "raw DBOS steps, 64 at a time",
}
_TARGETS = (
    ("agent", "one-call agent turn (side effect)", "raw_turn", 2.0),
    ("turn", f"per call, {BATCH}-call batch (side effect, one at a time)", "raw", 1.3),
    ("turn_wide", f"per call, {BATCH}-call batch (side effect, 64 at a time)", "raw_wide", 1.3),
    ("turn_ro", f"per call, {BATCH}-call batch (read-only)", "raw", 1.3),
)
_SUBJECTS = (
    ("plain", "plain in-memory dispatch (no DBOS)", "raw"),
    ("agent", "one-call agent turn: model step + side-effecting call", "raw_turn"),
    ("agent", "the same agent turn, against one raw step", "raw"),
    ("raw_turn", "(peer) raw model step + raw tool step", "raw"),
    ("durable", "one-call batch in a host workflow, side-effecting", "raw"),
    ("durable_ro", "one-call batch in a host workflow, read-only", "raw"),
    ("turn", f"{BATCH}-call batch, side-effecting, one at a time", "raw"),
    ("turn_wide", f"{BATCH}-call batch, side-effecting, 64 at a time", "raw_wide"),
    ("turn_wide", f"{BATCH}-call batch, side-effecting, 64 at a time", "raw"),
    ("turn_ro", f"{BATCH}-call batch, read-only, one at a time", "raw"),
)


def _throughput_table(args: argparse.Namespace, url: str) -> str:
    rows = []
    for workers in (1, 2):
        f = _throughput_figures(url.format(db=f"bench_q{workers}"), args.batch, workers,
                                args.repeats)  # fmt: skip
        ours, peer = f["durable"], f["raw"]
        rows.append([str(workers), f"{args.batch / ours.median:,.0f}",
                     f"{args.batch / peer.median:,.0f}", fmt_ratio(ours.median / peer.median),
                     fmt_ratio(ours.best / peer.best)])  # fmt: skip
    return markdown_table(["workers", "durable calls/s", "raw DBOS workflows/s",
                           "durable time / raw", "best batches"], rows)  # fmt: skip


def _report(args: argparse.Namespace, tmp: Path) -> None:
    flags = f" --calls {args.calls} --batch {args.batch} --repeats {args.repeats}"
    print(header(COMMAND + flags + (" --skip-postgres" if args.skip_postgres else "")))
    backends = [("SQLite", f"sqlite:///{tmp / 'bench.sqlite'}")]
    pg_root = Path(tempfile.mkdtemp(prefix="prism-bench-pg-"))  # the server user must reach it
    pg = None if args.skip_postgres else _postgres(pg_root)
    if pg is not None:
        backends.append(("Postgres", pg[0].format(db="bench_overhead")))
    try:
        print("### Per-call cost\n")
        print(_overhead_table(args, backends, tmp))
        if pg is None:
            print("\n(Postgres binaries not found or --skip-postgres: throughput not measured)")
            return
        print(f"\n### Throughput: one batch of {args.batch} short calls on a Postgres queue\n")
        print(_throughput_table(args, pg[0]))
    finally:
        if pg is not None:
            subprocess.run(pg[1], capture_output=True)
        shutil.rmtree(pg_root, ignore_errors=True)


if __name__ == "__main__":
    main()
