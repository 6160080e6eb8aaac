"""A durable agent run: start it, crash it while it awaits approval, approve it from another
process, recover it. Each step is a separate process sharing one SQLite file:

    python docs/examples/durable_agent.py start   DIR   # runs until it awaits approval; crashes
    python docs/examples/durable_agent.py approve DIR   # another process sends the decision
    python docs/examples/durable_agent.py recover DIR   # launch resumes the run where it stopped

With a Postgres URL instead of the SQLite file, the processes may be on different machines.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from prism.core import TextContent, ToolCall, ToolExecutionContext, ToolFilter
from prism.core.agent import ModelRequest, ModelResponse
from prism.core.functions import tool
from prism.dbos import (
    AWAITING_APPROVAL_EVENT,
    ApprovalOptions,
    DurableAgent,
    launch_dbos,
    send_approval,
)

RUN_ID = "release-42"


@tool(read_only=True)
def check_tests(branch: str) -> str:
    """Report the test status of a branch (read-only: safe to re-run after a crash)."""
    return f"{branch}: 812 passed"


@tool
async def deploy(branch: str, context: ToolExecutionContext) -> str:
    """Deploy a branch (a side effect: never re-run after a crash, and needs approval)."""
    print(f"deploy ran for {branch} (run {context.run_id})", flush=True)
    return f"deployed {branch}"


class ReleaseModel:
    """A scripted stand-in for a real provider: check, deploy, then report."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        turn = sum(1 for m in request.messages if getattr(m, "role", "") == "assistant")
        if turn == 0:
            calls = (
                ToolCall(id="t1", name="check_tests", arguments={"branch": "main"}),
                ToolCall(id="t2", name="deploy", arguments={"branch": "main"}),
            )
            return ModelResponse(tool_calls=calls)
        return ModelResponse(content=(TextContent(text="main is tested and deployed"),))


def build_agent() -> DurableAgent:
    """Every process builds the same agent (same name) before launching DBOS."""
    return DurableAgent(
        name="release-agent",
        provider=ReleaseModel(),
        model="scripted",
        tools=[check_tests, deploy],
        approval=ApprovalOptions(tools=ToolFilter(allow=["deploy"]), timeout_seconds=3600),
    )


async def start(url: str) -> None:
    agent = build_agent()
    # A named executor id is stable across restarts: the process that recovers uses it too.
    launch_dbos(app_name="release", database_url=url, executor_id="release-host")
    await agent.start("Release main", run_id=RUN_ID)
    from dbos import DBOS

    waiting = await DBOS.get_event_async(RUN_ID, AWAITING_APPROVAL_EVENT, timeout_seconds=60)
    print(f"awaiting approval: {waiting}; crashing now (kill -9)", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


async def recover(url: str) -> None:
    agent = build_agent()
    # The same executor id: launch resumes the unfinished runs the killed process held.
    launch_dbos(app_name="release", database_url=url, executor_id="release-host")
    result = await agent.result(RUN_ID)
    for message in result.messages:
        if message.role == "tool":
            print(f"tool {message.result.name}: {message.result.content[0]}")
    print(f"run {RUN_ID} {result.status}: {result.final_text}")
    from dbos import DBOS

    DBOS.destroy()


def main() -> None:
    command, directory = sys.argv[1], Path(sys.argv[2])
    url = f"sqlite:///{directory / 'release.sqlite'}"
    if command == "start":
        asyncio.run(start(url))
    elif command == "approve":  # no DBOS launch needed: a client writes the decision
        delivery = send_approval(RUN_ID, "t2", True, reason="looks good", database_url=url)
        print(f"approval of t2: {delivery.value}")
    else:
        asyncio.run(recover(url))


if __name__ == "__main__":
    main()
