"""One process of the scripted durable app the rows E13–E15 crash and recover.

Run as ``python -m prism.conformance._durable_child ROLE --db URL --log DIR --factory WHERE``;
``WHERE`` is ``module:qualname`` or ``/path/file.py:qualname`` of the durable agent factory
under test (called like ``prism.dbos.DurableAgent(**options)``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from prism.core import (
    TextContent,
    ToolCall,
    ToolCallRecord,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
)
from prism.core.agent import LoopOptions, ModelRequest, ModelResponse

_POLL_SECONDS = 0.05
"""How often a waiting process looks for a message or event in SQLite (DBOS's default, 1 s,
would add up to a second to every approval and to every process's exit)."""

SCRIPTS: dict[str, list[list[tuple[str, str]]]] = {
    "turns": [[("s1", "side"), ("p1", "peek")], [("s2", "side")]],
    "approval": [[("d1", "deploy")]],
}


def load_factory(where: str) -> Any:
    """The object ``module:qualname`` or ``file.py:qualname`` names."""
    location, _, qualname = where.rpartition(":")
    if location.endswith(".py"):
        spec = importlib.util.spec_from_file_location("_prism_durable_subject", location)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {location}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(location)
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


class App:
    """Tools, a scripted model and a file ledger that log to ``log`` (shared by processes)."""

    def __init__(self, log: Path, hang: str) -> None:
        self.log = log
        self.hang = hang

    def append(self, name: str, row: dict[str, Any]) -> None:
        line = (json.dumps({**row, "pid": os.getpid(), "t": time.time()}) + "\n").encode()
        fd = os.open(self.log / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    async def maybe_hang(self, point: str) -> None:
        if point == self.hang:
            (self.log / f"reached-{point}").write_text(str(os.getpid()))
            await asyncio.sleep(3600)

    def tool(self, name: str, *, read_only: bool = False) -> ToolDefinition:
        async def run(arguments: Any, context: ToolExecutionContext) -> str:
            self.append("executions.jsonl", {"call": context.tool_call_id, "at": "begin"})
            await self.maybe_hang(context.tool_call_id)
            self.append("executions.jsonl", {"call": context.tool_call_id, "at": "end"})
            return f"{name}:{context.tool_call_id}"

        return ToolDefinition(
            name=name, execute=run, read_only=read_only,
            parameters={"type": "object", "properties": {}},
        )  # fmt: skip

    def append_record(self, record: ToolCallRecord) -> None:
        self.append(
            "ledger.jsonl",
            {"call": record.tool_call_id, "status": record.status, "reason": record.reason},
        )


class Ledger:
    def __init__(self, app: App) -> None:
        self.app = app

    def append(self, record: ToolCallRecord) -> None:
        self.app.append_record(record)


class Model:
    def __init__(self, app: App, script: str) -> None:
        self.app = app
        self.turns = SCRIPTS[script]

    async def generate(self, request: ModelRequest) -> ModelResponse:
        turn = sum(1 for m in request.messages if getattr(m, "role", "") == "assistant")
        self.app.append("model.jsonl", {"turn": turn})
        await self.app.maybe_hang(f"model-{turn}")
        if turn < len(self.turns):
            calls = [ToolCall(id=i, name=n, arguments={}) for i, n in self.turns[turn]]
            return ModelResponse(tool_calls=tuple(calls))
        return ModelResponse(content=(TextContent(text="done"),))


async def _await_event(client: Any, args: argparse.Namespace, durable: Any) -> Any:
    """The run's awaiting-approval event, polled (a client re-checks a waited event only every
    second); ``None`` after ``--wait`` seconds. The run's process may not have created the
    database's tables yet: an error is retried until then."""
    deadline = time.monotonic() + args.wait
    try:
        while True:
            try:
                event = client.get_event(args.run_id, durable.AWAITING_APPROVAL_EVENT, 0)
            except Exception:
                if time.monotonic() > deadline:
                    raise
                event = None
            if event or time.monotonic() > deadline:
                return event
            await asyncio.sleep(_POLL_SECONDS)
    finally:
        client.destroy()


async def main_async(args: argparse.Namespace) -> int:
    import prism.dbos as durable

    if args.role == "approve":
        durable.send_approval(args.run_id, args.call_id, True, database_url=args.db)
        return 0
    if args.role == "await":
        from dbos import DBOSClient

        event = await _await_event(DBOSClient(system_database_url=args.db), args, durable)
        print(json.dumps(event))
        return 0 if event else 3
    app = App(Path(args.log), args.hang)
    approval = None
    if args.script == "approval":
        approval = durable.ApprovalOptions(tools=ToolFilter(allow=["deploy"]), timeout_seconds=600)
    agent = load_factory(args.factory)(
        name="conformance-durable", provider=Model(app, args.script), model="scripted",
        tools=[app.tool("side"), app.tool("peek", read_only=True), app.tool("deploy")],
        loop=LoopOptions(tool_concurrency=1), gates=ToolGates(ledger=Ledger(app)),
        approval=approval,
    )  # fmt: skip
    # A named executor: the recovering process takes over the runs of the one that died.
    durable.launch_dbos(
        app_name="prism-conformance", database_url=args.db, executor_id="conformance-host",
        notification_poll_seconds=_POLL_SECONDS,
    )  # fmt: skip
    if args.role == "run":
        await agent.start("go", run_id=args.run_id)
    result = await agent.result(args.run_id)
    from prism.dbos.codec import encode_run

    print("RESULT " + json.dumps(encode_run(result)), flush=True)
    from dbos import DBOS

    DBOS.destroy()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["run", "recover", "approve", "await"])
    parser.add_argument("--db", required=True)
    parser.add_argument("--log", default=".")
    parser.add_argument("--factory", default="prism.dbos:DurableAgent")
    parser.add_argument("--script", default="turns")
    parser.add_argument("--hang", default="")
    parser.add_argument("--run-id", default="conformance-run")
    parser.add_argument("--call-id", default="")
    parser.add_argument("--wait", type=float, default=20.0)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
