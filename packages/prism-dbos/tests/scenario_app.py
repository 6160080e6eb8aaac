"""A durable test app run in child processes (DBOS keeps one instance per process).

Roles: ``run`` starts a run and waits for it; ``recover`` launches (which resumes unfinished
runs) and waits for ``--run-id``; ``worker`` only executes queued calls; ``approve`` and
``await-approval`` talk to a run from outside. Every execution, ledger row and model request
is appended to JSONL files under ``--log`` so the parent test can count them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from dbos import DBOS, SetWorkflowID

from prism.core import (
    AbortController,
    MiddlewareRegistry,
    TextContent,
    ToolCall,
    ToolCallRecord,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    ToolResult,
)
from prism.core.agent import LoopOptions, ModelRequest, ModelResponse, RunLimits
from prism.core.functions import tool
from prism.dbos import (
    AWAITING_APPROVAL_EVENT,
    ApprovalOptions,
    DurableAgent,
    DurableToolset,
    QueueConflictError,
    QueueOptions,
    durable_dispatch_tool_calls_in_order,
    launch_dbos,
    register_tool_queue,
    register_toolset,
    send_approval,
)
from prism.dbos.codec import encode_result, encode_run

LOG = Path(os.environ.get("PRISM_TEST_LOG", "."))
ROLE = os.environ.get("PRISM_TEST_ROLE", "")
HANG = set(filter(None, os.environ.get("PRISM_TEST_HANG", "").split(",")))
PAUSE = set(filter(None, os.environ.get("PRISM_TEST_PAUSE", "").split(",")))
SLOW = float(os.environ.get("PRISM_TEST_SLOW", "0"))
POLL_SECONDS = 0.05
"""How often a waiting process looks for a message or event in SQLite (DBOS's default, 1 s,
would add up to a second to every approval and to every process's exit)."""


def append(name: str, row: dict[str, Any]) -> None:
    """One JSON line, written with O_APPEND in one call (several processes share the files)."""
    line = (json.dumps({**row, "pid": os.getpid(), "role": ROLE}) + "\n").encode()
    fd = os.open(LOG / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


async def hang_if_asked(point: str) -> None:
    """At a chosen kill point of the first process: say so, then wait to be killed."""
    if point in HANG:
        (LOG / f"reached-{point}").write_text(str(os.getpid()))
        await asyncio.sleep(3600)


async def pause_if_asked(point: str) -> None:
    """At a chosen point: say so, then wait until the test releases it (bounded)."""
    if point in PAUSE:
        (LOG / f"reached-{point}").write_text(str(os.getpid()))
        deadline = time.monotonic() + 300
        while not (LOG / f"release-{point}").exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)


async def _work(kind: str, ctx: ToolExecutionContext, text: str) -> str:
    append("executions.jsonl", {"tool": kind, "call": ctx.tool_call_id, "at": "begin"})
    await hang_if_asked(ctx.tool_call_id)
    await pause_if_asked(ctx.tool_call_id)
    if SLOW:
        await asyncio.sleep(SLOW)
    append("executions.jsonl", {"tool": kind, "call": ctx.tool_call_id, "at": "end"})
    return f"{kind}:{text}"


@tool
async def note(text: str, context: ToolExecutionContext) -> str:
    """Append a note (a side effect: never re-run after a crash)."""
    return await _work("note", context, text)


@tool(read_only=True)
async def lookup(text: str, context: ToolExecutionContext) -> str:
    """Look something up (read-only)."""
    return await _work("lookup", context, text)


@tool(idempotent=True)
async def put(text: str, context: ToolExecutionContext) -> str:
    """Set a value (idempotent)."""
    return await _work("put", context, text)


@tool
async def deploy(text: str, context: ToolExecutionContext) -> str:
    """Deploy (needs approval)."""
    return await _work("deploy", context, text)


def _call(call_id: str, name: str) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments={"text": call_id})


SCRIPTS: dict[str, list[list[ToolCall]]] = {
    "two-turns": [
        [_call("c1", "note"), _call("c2", "lookup")],
        [_call("c3", "put"), _call("c4", "note")],
    ],
    "approval": [[_call("a1", "lookup"), _call("a2", "deploy")]],
    "reuse": [[_call("r1", "deploy"), _call("r1", "deploy")], [_call("r1", "deploy")]],
    "expire": [[_call("e1", "deploy")], [_call("e2", "note")]],
    "batch": [[_call(f"b{i}", "note") for i in range(int(os.environ.get("PRISM_TEST_N", "6")))]],
}


class ScriptedProvider:
    """Turn n of the script, then a final text; hangs before turn ``model-<n>`` if asked."""

    def __init__(self, script: str) -> None:
        self.turns = SCRIPTS[script]

    async def generate(self, request: ModelRequest) -> ModelResponse:
        turn = sum(1 for m in request.messages if getattr(m, "role", "") == "assistant")
        append("model.jsonl", {"turn": turn})
        await hang_if_asked(f"model-{turn}")
        if turn < len(self.turns):
            return ModelResponse(tool_calls=tuple(self.turns[turn]))
        return ModelResponse(content=(TextContent(text="done"),))


async def record_event(event: object) -> None:
    """The event sink: one line per event (its kind, call and error code)."""
    call = getattr(event, "call", None)
    error = getattr(event, "error", None)
    append(
        "events.jsonl",
        {
            "kind": type(event).__name__,
            "call": getattr(call, "id", None),
            "code": getattr(error, "code", None),
            "name": getattr(error, "name", None),
        },
    )


class FileLedger:
    """A ledger that outlives the process: one JSON line per row (every append), and a SQLite
    table whose primary key is the row id (a uniqueness constraint: a second row with an id
    already stored raises, which dispatch logs and ignores)."""

    def append(self, record: ToolCallRecord) -> None:
        append(
            "ledger.jsonl",
            {
                "call": record.tool_call_id, "status": record.status, "reason": record.reason,
                "id": record.id,
            },
        )  # fmt: skip
        with contextlib.closing(sqlite3.connect(LOG / "ledger.sqlite", timeout=60)) as db, db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY, call TEXT, status TEXT,"
                " reason TEXT)"
            )
            db.execute(
                "INSERT INTO rows VALUES (?, ?, ?, ?)",
                (record.id, record.tool_call_id, record.status, record.reason),
            )


ABORT = AbortController()


@tool
async def stopper(text: str, context: ToolExecutionContext) -> str:
    """Abort the batch, then ignore the signal (the grace period must cancel it)."""
    append("executions.jsonl", {"tool": "stopper", "call": context.tool_call_id, "at": "begin"})
    ABORT.abort("stop requested")
    await asyncio.sleep(30)
    return "never"


ABORT_TOOLS = register_toolset(
    DurableToolset(
        name="abort-tools",
        tools=ToolRegistry([stopper, note]),
        abort_grace_seconds=0.2,
        gates=ToolGates(ledger=FileLedger()),
    )
)


@DBOS.workflow(name="test.abort_batch")
async def abort_batch() -> list[dict[str, Any]]:
    calls = [_call("x1", "note"), _call("x2", "stopper"), _call("x3", "note")]
    results = await durable_dispatch_tool_calls_in_order(
        calls, toolset=ABORT_TOOLS, signal=ABORT.signal
    )
    return [encode_result(r) for r in results]


async def _before_start(call: ToolCall) -> None:
    """``tool_call`` middleware: the turn's model step is recorded, no call has started."""
    await hang_if_asked(f"prepare-{call.id}")


async def _after_return(result: ToolResult) -> None:
    """``tool_result`` middleware: the handler returned, its result is not recorded yet."""
    await hang_if_asked(f"returned-{result.tool_call_id}")


def _kill_point_middleware() -> MiddlewareRegistry:
    middleware = MiddlewareRegistry()
    middleware.use("tool_call", _before_start)
    middleware.use("tool_result", _after_return)
    return middleware


BATCH_TOOLSETS = {
    n: register_toolset(
        DurableToolset(
            name=f"batch-tools-{n}",
            tools=ToolRegistry([note, lookup]),
            tool_concurrency=n,
            gates=ToolGates(ledger=FileLedger(), middleware=_kill_point_middleware()),
            emit=record_event,
        )
    )
    for n in (1, 2)
}


@DBOS.workflow(name="test.bare_batch")
async def bare_batch(concurrency: int, n: int) -> list[dict[str, Any]]:
    """A host's own workflow: one durable batch of ``n`` side-effecting calls, no model step."""
    calls = [_call(f"b{i}", "note") for i in range(n)]
    results = await durable_dispatch_tool_calls_in_order(calls, toolset=BATCH_TOOLSETS[concurrency])
    return [encode_result(r) for r in results]


def build_agent(args: argparse.Namespace) -> DurableAgent:
    approval = None
    if args.approval_timeout:
        approval = ApprovalOptions(
            tools=ToolFilter(allow=["deploy"]), timeout_seconds=args.approval_timeout
        )
    queue = None
    if args.queue:
        queue = QueueOptions(
            name="prism-test-tools",
            global_concurrency=args.global_concurrency,
            worker_concurrency=args.worker_concurrency,
            polling_interval_seconds=0.1,
            result_deadline_seconds=args.result_deadline or None,  # 0: no deadline
        )
    return DurableAgent(
        name="test-agent",
        provider=ScriptedProvider(args.script),
        model="scripted",
        tools=[note, lookup, put, deploy],
        loop=LoopOptions(tool_concurrency=args.concurrency),
        gates=ToolGates(ledger=FileLedger(), middleware=_kill_point_middleware()),
        emit=record_event,
        approval=approval,
        queue=queue,
        limits=RunLimits(max_tool_rounds=args.max_rounds),
    )


async def _launch(args: argparse.Namespace, agent: DurableAgent) -> None:
    host_only = args.role == "run" and agent.options.toolset.queue is not None
    launch_dbos(
        app_name="prism-test", database_url=args.db,
        executor_id=None if args.executor == "default" else args.executor,
        listen_queues=not host_only, notification_poll_seconds=POLL_SECONDS,
    )  # fmt: skip
    if agent.options.toolset.queue is not None:
        await register_tool_queue(agent.options.toolset.queue)


async def _register_queues(args: argparse.Namespace) -> None:
    """Register the tool queue with ``--worker-concurrency``, again, then with one more."""
    wanted = QueueOptions(name="prism-test-queue", worker_concurrency=args.worker_concurrency)
    changed = QueueOptions(name="prism-test-queue", worker_concurrency=args.worker_concurrency + 1)
    for label, options in (("first", wanted), ("again", wanted), ("changed", changed)):
        try:
            queue = await register_tool_queue(options)
        except QueueConflictError as exc:
            print(f"{label.upper()} conflict: {exc}", flush=True)
            continue
        held = await asyncio.to_thread(lambda q=queue: q.worker_concurrency)
        print(f"{label.upper()} ok {held}", flush=True)


def _approve(args: argparse.Namespace) -> int:
    """Send a decision; with ``--expect``, again until that is what happened (bounded)."""
    deadline = time.monotonic() + 60
    while True:
        delivery = send_approval(args.run_id, args.call_id, args.approved, database_url=args.db)
        if not args.expect or delivery == args.expect or time.monotonic() > deadline:
            print(f"DELIVERY {delivery.value}", flush=True)
            return 0
        time.sleep(0.1)


async def main_async(args: argparse.Namespace) -> int:
    agent = build_agent(args)
    if args.role == "approve":
        return _approve(args)
    if args.role == "await-approval":
        from dbos import DBOSClient

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:  # the run's process may not have created the database yet
                client = DBOSClient(system_database_url=args.db)
                try:  # a client re-checks a waited event only every second: poll it faster
                    while time.monotonic() < deadline:
                        event = client.get_event(args.run_id, AWAITING_APPROVAL_EVENT, 0)
                        if event:
                            print(json.dumps(event))
                            return 0
                        time.sleep(POLL_SECONDS)
                finally:
                    client.destroy()
            except Exception:
                time.sleep(0.1)
        return 1
    await _launch(args, agent)
    if args.role == "abort":
        with SetWorkflowID(args.run_id):
            handle = await DBOS.start_workflow_async(abort_batch)
        print("RESULT " + json.dumps({"results": await handle.get_result()}), flush=True)
        DBOS.destroy()
        return 0
    if args.role == "batch":  # start (or, after a crash, recover and wait for) a bare batch
        with SetWorkflowID(args.run_id):
            handle = await DBOS.start_workflow_async(
                bare_batch, args.concurrency, int(os.environ.get("PRISM_TEST_N", "6"))
            )
        print("RESULT " + json.dumps({"results": await handle.get_result()}), flush=True)
        DBOS.destroy()
        return 0
    if args.role == "queues":
        await _register_queues(args)
        DBOS.destroy()
        return 0
    if args.role == "worker":
        pending = await DBOS.list_workflows_async(status="PENDING", executor_id=DBOS.executor_id)
        print("RECOVERING " + json.dumps([w.workflow_id for w in pending]), flush=True)
        await asyncio.sleep(3600)
        return 0
    if args.role == "run":
        await agent.start("go", run_id=args.run_id)
    result = await agent.result(args.run_id)
    print("RESULT " + json.dumps(encode_run(result)))
    sys.stdout.flush()
    DBOS.destroy()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "role",
        choices=[
            "run",
            "recover",
            "worker",
            "approve",
            "await-approval",
            "abort",
            "queues",
            "batch",
        ],
    )
    parser.add_argument("--db", required=True)
    parser.add_argument("--run-id", default="run-1")
    parser.add_argument("--script", default="two-turns")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--approval-timeout", type=float, default=0.0)
    parser.add_argument("--call-id", default="")
    parser.add_argument("--approved", action="store_true")
    parser.add_argument("--queue", action="store_true")
    parser.add_argument("--global-concurrency", type=int, default=None)
    parser.add_argument("--worker-concurrency", type=int, default=None)
    parser.add_argument("--executor", default="test-host", help="'default': leave it unnamed")
    parser.add_argument("--expect", default="")
    parser.add_argument("--max-rounds", type=int, default=8)
    parser.add_argument("--result-deadline", type=float, default=3600.0)
    args = parser.parse_args()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
