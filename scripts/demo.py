"""Prism demo: one scripted agent run with five tool calls in a single model turn.

The "model" is a scripted stand-in (no LLM runs here). Turn 1 asks for five calls: two I/O
tools, one exclusive tool, one the permission policy denies, and one whose arguments the
model garbled. Turn 2 reads the results and answers. Prints the event stream and transcript.
Run: ``uv run scripts/demo.py`` (add ``--backend trio`` to run on trio).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from prism.core import (
    AgentEvent,
    ErrorInfo,
    InMemoryRunLedger,
    LoopOptions,
    ModelRequest,
    ModelResponse,
    SecretRedactor,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolMessage,
    ToolResult,
    UserMessage,
    create_agent,
    create_static_permission_policy,
    render_tool_result,
)
from prism.core._backend import sleep

API_TOKEN = "sk-demo-0123456789"


async def fetch_weather(args: Any, ctx: ToolExecutionContext) -> str:
    """Pretend network I/O: 200 ms."""
    await sleep(0.2)
    return f"{args['city']}: 21°C, clear (token {API_TOKEN} used)"


async def fetch_news(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    """Pretend network I/O returning structured data."""
    await sleep(0.2)
    return ToolResult(tool_call_id="", name="", value={"topic": args["topic"], "headlines": 3})


def write_report(args: Any, ctx: ToolExecutionContext) -> str:
    """A plain ``def`` tool (runs in a worker thread); exclusive: it runs alone."""
    return f"report saved ({len(args['text'])} chars)"


async def delete_everything(args: Any, ctx: ToolExecutionContext) -> str:
    raise AssertionError("the permission policy must stop this before it runs")


TOOLS = (
    ToolDefinition(name="weather", execute=fetch_weather, description="Current weather."),
    ToolDefinition(name="news", execute=fetch_news, description="Headline count."),
    ToolDefinition(name="report", execute=write_report, exclusive=True),
    ToolDefinition(name="delete_everything", execute=delete_everything),
)

TURN_1 = (
    ToolCall(id="c1", name="weather", arguments={"city": "Lisbon"}),
    ToolCall(id="c2", name="news", arguments={"topic": "python"}),
    ToolCall(id="c3", name="report", arguments={"text": "weekly summary"}),
    ToolCall(id="c4", name="delete_everything", arguments={}),
    ToolCall(
        id="c5",
        name="weather",
        arguments={},
        arguments_error=ErrorInfo(message="Expecting ',' delimiter: line 1 column 9"),
    ),
)


class DemoModel:
    """A scripted fake model: turn 1 asks for tools, turn 2 summarizes what came back."""

    def __init__(self) -> None:
        self.turns = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.turns += 1
        if self.turns == 1:
            return ModelResponse(content=(TextContent(text="Let me check."),), tool_calls=TURN_1)
        results = [m.result for m in request.messages if isinstance(m, ToolMessage)]
        ok = sum(not r.is_error for r in results)
        summary = f"{ok} of {len(results)} calls worked; " + "; ".join(
            f"{r.name}: {'error ' + (r.error.code or '') if r.error else 'ok'}" for r in results
        )
        return ModelResponse(content=(TextContent(text=summary),))


def describe(event: AgentEvent, t0: float) -> str:
    at = f"{time.perf_counter() - t0:6.3f}s"
    name = f"{event.call.name}#{event.call.id}"
    if event.type == "tool_execution_blocked":
        return f"{at}  blocked   {name:26} {event.reason}: {event.error.message}"
    if event.type == "tool_execution_finished":
        text = render_tool_result(event.result).replace("\n", " ")
        return f"{at}  finished  {name:26} {text}"
    if event.type == "tool_execution_error":
        return f"{at}  error     {name:26} {event.error.message}"
    return f"{at}  {event.type.removeprefix('tool_execution_'):9} {name}"


async def main() -> None:
    t0 = time.perf_counter()
    ledger = InMemoryRunLedger()
    agent = create_agent(
        provider=DemoModel(),
        model="scripted-demo",
        tools=TOOLS,
        permission=create_static_permission_policy(deny=["tool:delete_*:execute"]),
        loop=LoopOptions(tool_concurrency=4),
        ledger=ledger,
        redactor=SecretRedactor([API_TOKEN]),
    )
    print("== events (turn 1 calls an exclusive tool, so that turn runs one call at a time)")
    result = await agent.run(
        "Weather in Lisbon, python news, save a report.",
        emit=lambda event: print(describe(event, t0)),
    )
    print("\n== transcript")
    for message in result.messages:
        if isinstance(message, UserMessage):
            print(f"user:      {message.content}")
        elif isinstance(message, ToolMessage):
            r = message.result
            print(f"tool:      [{r.tool_call_id}] {render_tool_result(r)}")
        else:
            calls = ", ".join(f"{c.name}#{c.id}" for c in message.tool_calls)
            text = " ".join(getattr(b, "text", "") for b in message.content)
            print(f"assistant: {text}" + (f"  -> calls {calls}" if calls else ""))
    print(f"\n== run {result.status} ({result.finish_reason}); {len(ledger.records)} ledger rows;")
    leaked = any(API_TOKEN in repr(row) for row in ledger.records)
    print(f"   secret in ledger: {'YES' if leaked else 'no (redacted)'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    backend = parser.parse_args().backend
    if backend == "trio":
        import trio

        trio.run(main)
    else:
        asyncio.run(main())
