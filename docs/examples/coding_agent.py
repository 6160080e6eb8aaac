"""End-to-end example: a coding agent that wires every Prism package together.

The "model" is a ``ScriptedProvider`` -- a scripted stand-in for an LLM that replays fixed
turns -- so the run is deterministic and needs no API key. Its turns use:

* an MCP docs-search server over stdio (``example_mcp_server.py``, started here) via prism-mcp;
* the coding tools (read/write/edit/shell) in a fresh temp workspace, guarded by the coding
  approval policy, with the shell inside a bubblewrap sandbox when one works on this machine;
* the JSON Schema validator as the agent's validator (one call has bad arguments);
* parallel dispatch (``tool_concurrency=4``) for a turn of read-only calls;
* an approval callback that approves one command and denies another, while the policy denies a
  path outside the workspace and ``rm -rf /`` without asking anyone;
* a ledger and a redactor that hide an API token the MCP server leaks in a result.

Run: ``uv run docs/examples/coding_agent.py [--backend trio] [--no-sandbox]``
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio

from prism.coding_security import (
    ApprovalCallback,
    ApprovalRequest,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ShellOperations, ShellOptions, create_coding_tools
from prism.core import (
    InMemoryRunLedger,
    SecretRedactor,
    TextContent,
    ToolCall,
    ToolGates,
    ToolRegistry,
    render_tool_result,
)
from prism.core.agent import Agent, LoopOptions, ModelRequest, ModelResponse
from prism.core.events import AgentEvent
from prism.core.testing import ScriptedProvider
from prism.jsonschema import create_json_schema_tool_argument_validator
from prism.mcp import McpBridgeOptions, StdioTransport, connect_mcp_tools

SERVER = Path(__file__).with_name("example_mcp_server.py")
FAKE_TOKEN = "sk-demo-5f3c9a1e7b2d4068"  # a fake credential the docs server leaks in a result
TIME_LIMIT_SECONDS = 90  # the whole run is bounded; every inner wait has its own bound too
REDACTED = "[REDACTED]"  # what SecretRedactor puts in place of a secret
APPROVED_COMMANDS = {"python3 -m unittest -q"}  # what our stand-in "human" says yes to

STYLE_FIX = {"old_text": 'return "Hello " + name', "new_text": 'return f"Hello, {name}!"'}
TEST_FILE = """\
import unittest

from greet import greet


class GreetTest(unittest.TestCase):
    def test_style(self):
        self.assertEqual(greet("Ada"), "Hello, Ada!")
"""


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


# What the scripted "model" does, turn by turn. A real provider would decide this from the
# tool results; here the script is fixed so that the output is the same on every run.
SCRIPT = [
    # Turn 1: look around. Read-only calls, dispatched in parallel.
    ModelResponse(
        tool_calls=(
            call("c1", "mcp:docs:search", query="style"),
            call("c2", "mcp:docs:search", query="deploy"),  # the answer leaks FAKE_TOKEN
            call("c3", "read", path="greet.py"),
            call("c4", "mcp:docs:search", limit="two"),  # bad arguments: blocked by validation
            call("c5", "read", path="/etc/passwd"),  # outside the workspace: policy denies
        )
    ),
    # Turn 2: change the code and add a test (inside the workspace: no approval needed).
    ModelResponse(
        tool_calls=(
            call("c6", "edit", path="greet.py", edits=[STYLE_FIX]),
            call("c7", "write", path="test_greet.py", content=TEST_FILE),
        )
    ),
    # Turn 3: shell commands (an exclusive tool, so this turn runs one call at a time).
    ModelResponse(
        tool_calls=(
            call("c8", "shell", command="python3 -m unittest -q"),  # asked, approved
            call("c9", "shell", command="pip install requests"),  # asked, denied
            call("c10", "shell", command="rm -rf /"),  # denied by the policy, nobody asked
        )
    ),
    ModelResponse(content=(TextContent(text="greet() follows the style guide; tests pass."),)),
]


class Log:
    """Prints one line per event and keeps every line (to prove the secret never got out)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.events: list[AgentEvent] = []
        self.turn = 0
        self.running = 0
        self.max_running: Counter[int] = Counter()  # turn -> most calls running at once

    def say(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)

    def __call__(self, event: AgentEvent) -> None:  # the agent's event sink
        self.events.append(event)
        call = event.call
        head = f"  {call.id:<4}"
        if event.type == "tool_execution_started":
            self.running += 1
            self.max_running[self.turn] = max(self.max_running[self.turn], self.running)
            self.say(f"{head}started  {call.name} {clip(json.dumps(call.arguments), 90)}")
        elif event.type == "tool_execution_finished":
            self.running -= 1
            code = event.result.error.code if event.result.error else "ok"
            self.say(
                f"{head}finished {call.name} [{code}] {clip(render_tool_result(event.result))}"
            )
        elif event.type == "tool_execution_blocked":
            self.say(f"{head}BLOCKED  {call.name} [{event.reason}] {clip(event.error.message)}")
        elif event.type == "tool_execution_failed":
            self.running -= 1
            self.say(f"{head}ERROR    {call.name} [{event.error.code}] {event.error.message}")


def clip(text: str, limit: int = 110) -> str:
    text = " | ".join(line for line in text.splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class NarratedProvider:
    """Wraps the scripted provider to print what the "model" asks for on each turn."""

    def __init__(self, inner: ScriptedProvider, log: Log) -> None:
        self.inner, self.log = inner, log

    async def generate(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.generate(request)
        self.log.turn += 1
        names = ", ".join(c.name for c in response.tool_calls)
        text = "".join(b.text for b in response.content if isinstance(b, TextContent))
        said = f"asks for {names}" if names else f"answers: {text}"
        self.log.say(f"--- model turn {self.log.turn} (scripted): {said}")
        return response


def make_approver(log: Log) -> ApprovalCallback:
    """The approval callback: a stand-in for a human answering a prompt in a UI."""

    async def approve(request: ApprovalRequest) -> bool:
        approved = request.action.command in APPROVED_COMMANDS
        log.say(f"  APPROVAL asked: {request.describe()}")
        log.say(f"  APPROVAL {'granted' if approved else 'denied'} by the user")
        return approved  # only a literal True approves

    return approve


async def shell_operations(workspace: str, want_sandbox: bool, log: Log) -> ShellOperations | None:
    """The bubblewrap sandbox if it really works here (we try it), else local execution."""
    if not want_sandbox:
        log.say("NOTE: --no-sandbox: the shell runs locally, guarded by the policy only")
        return None
    sandbox = BubblewrapSandbox(root=workspace, network=False)
    try:
        probe = await sandbox.exec(
            "true", cwd=workspace, env={}, on_data=lambda _: None, timeout_seconds=15
        )
        working = probe.exit_code == 0
        why = f"probe exited with {probe.exit_code}"
    except SandboxUnavailableError as error:
        working, why = False, str(error).partition("\n")[0]
    if not working:
        log.say(f"NOTE: bubblewrap is unavailable ({why}); the shell runs locally instead")
        return None
    isolated = [name for name, on in dataclasses.asdict(sandbox.capabilities).items() if on]
    log.say(f"sandbox: shell commands run inside bubblewrap ({', '.join(isolated)})")
    return create_sandbox_bash_operations(sandbox)


async def run_agent(workspace: str, want_sandbox: bool, log: Log) -> dict[str, Any]:
    """Start the MCP server, build the agent, run the script; returns what the summary needs."""
    shell = ShellOptions(
        timeout_seconds=30,
        env_allowlist=("PATH", "HOME", "LANG"),  # keep the host's secrets away from commands
        operations=await shell_operations(workspace, want_sandbox, log),
    )
    policy = CodingApprovalPolicy(
        roots=[workspace], approve=make_approver(log), approval_timeout_seconds=10
    )
    coding_tools = create_coding_tools(workspace, execution_policy=policy, shell=shell)
    # The server gets a minimal environment plus what we pass here; the token is its own.
    server = StdioTransport(sys.executable, args=(str(SERVER),), env={"DOCS_API_TOKEN": FAKE_TOKEN})
    ledger = InMemoryRunLedger()
    async with connect_mcp_tools(
        server_id="docs",
        transport=server,
        options=McpBridgeOptions(connect_timeout_seconds=20, call_timeout_seconds=10),
    ) as bridge:
        pids = {bridge.server_pid}
        log.say(f"MCP server started over stdio (pid {bridge.server_pid})")
        agent = Agent(
            provider=NarratedProvider(ScriptedProvider(SCRIPT), log),
            model="scripted",
            tools=ToolRegistry([*bridge.tools, *coding_tools]),
            gates=ToolGates(
                validator=create_json_schema_tool_argument_validator(),
                ledger=ledger,
                redactor=SecretRedactor([FAKE_TOKEN]),
            ),
            loop=LoopOptions(tool_concurrency=4),
        )
        log.say(f"tools offered to the model: {', '.join(t.name for t in agent.tool_specs())}")
        run = await agent.run("Make greet() follow the style guide and test it.", emit=log)
        pids.add(bridge.server_pid)
    sandboxed = shell.operations is not None
    return {"run": run, "ledger": ledger, "server_pids": pids - {None}, "sandboxed": sandboxed}


def summarize(log: Log, out: dict[str, Any], workspace: str) -> None:
    run, ledger = out["run"], out["ledger"]
    log.say("=== summary")
    log.say(f"run: {run.status} ({run.finish_reason}) after {log.turn} model turns")
    where = "inside the bubblewrap sandbox" if out["sandboxed"] else "locally (no sandbox)"
    log.say(f"shell: commands ran {where}")
    log.say(f"parallel: turn 1 had up to {log.max_running[1]} calls running at once")
    rows = Counter(record.status for record in ledger.records)
    log.say(
        f"ledger: {len(ledger)} rows: " + ", ".join(f"{k}={v}" for k, v in sorted(rows.items()))
    )
    # The redactor ran on every result, event and ledger row: the token is nowhere.
    everywhere = repr((run.messages, log.events, ledger.records))
    log.say(
        f"secret: {REDACTED} appears {everywhere.count(REDACTED)} times; the token appears "
        f"{everywhere.count(FAKE_TOKEN)} times in the transcript, events and ledger"
    )
    for path in sorted(Path(workspace).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:  # leave bytecode caches out
            log.say(f"workspace file: {path.relative_to(workspace)} ({path.stat().st_size} bytes)")


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    """True once /proc/<pid> is gone (a bounded poll; the bridge already killed its group)."""
    deadline = time.monotonic() + seconds
    while os.path.exists(f"/proc/{pid}"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def run_bounded(workspace: str, want_sandbox: bool, log: Log) -> dict[str, Any]:
    with anyio.fail_after(TIME_LIMIT_SECONDS):  # one outer bound on top of every inner one
        return await run_agent(workspace, want_sandbox, log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    parser.add_argument("--no-sandbox", action="store_true", help="run the shell locally")
    args = parser.parse_args()
    log = Log()
    log.say("Prism end-to-end example. The model is a ScriptedProvider (a scripted stand-in")
    log.say("for an LLM): its tool calls are fixed in SCRIPT, the tools and gates are real.")
    # The workspace is removed on the way out, whatever happens inside.
    with tempfile.TemporaryDirectory(prefix="prism-example-") as tmp:
        workspace = os.path.realpath(tmp)
        Path(workspace, "greet.py").write_text('def greet(name):\n    return "Hello " + name\n')
        log.say(f"workspace: {workspace} (backend: {args.backend})")
        out = anyio.run(run_bounded, workspace, not args.no_sandbox, log, backend=args.backend)
        summarize(log, out, workspace)
    gone = [wait_gone(pid) for pid in sorted(out["server_pids"])]
    for pid, ok in zip(sorted(out["server_pids"]), gone, strict=True):
        log.say(f"cleanup: MCP server process {pid} {'gone' if ok else 'STILL RUNNING'}")
    removed = not os.path.exists(workspace)
    log.say(f"cleanup: workspace removed: {removed}")
    leaked = sum(FAKE_TOKEN in line for line in log.lines)
    log.say(f"secret in this output: {leaked} line(s)")
    if leaked or not all(gone) or not removed or out["run"].status != "succeeded":
        sys.exit("example FAILED: the run, secrecy or cleanup went wrong (see above)")


if __name__ == "__main__":
    main()
