"""Prism demo: a scripted agent run whose tool calls visibly overlap, then one exclusive turn.

The "model" is a scripted stand-in (no LLM runs here). Turn 1 asks for five calls: three I/O
tools (200 ms each) that run at the same time, one the permission policy denies, and one whose
arguments the model garbled. Turn 2 asks for an exclusive tool next to two I/O tools, so that turn
runs one call at a time. Turn 3 answers. Prints the event stream, a timeline per turn (overlap is
visible), and the transcript. Uses only public names.
Run: ``uv run scripts/demo.py`` (add ``--backend trio`` to run on trio).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import anyio
import anyio.lowlevel

from prism.core import (
    ErrorInfo,
    InMemoryRunLedger,
    SecretRedactor,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolResult,
    create_static_permission_policy,
    render_tool_result,
)
from prism.core.agent import (
    Agent,
    LoopOptions,
    ModelRequest,
    ModelResponse,
    ToolMessage,
    UserMessage,
)
from prism.core.events import AgentEvent

API_TOKEN = "sk-demo-0123456789"
IO_SECONDS = 0.2


async def fetch_weather(args: Any, ctx: ToolExecutionContext) -> str:
    """Pretend network I/O: 200 ms (any awaitable works, on asyncio or trio)."""
    await anyio.sleep(IO_SECONDS)
    return f"{args['city']}: 21°C, clear (token {API_TOKEN} used)"


async def fetch_news(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    """Pretend network I/O returning structured data."""
    await anyio.sleep(IO_SECONDS)
    return ToolResult(tool_call_id="", name="", value={"topic": args["topic"], "headlines": 3})


def write_report(args: Any, ctx: ToolExecutionContext) -> str:
    """A plain ``def`` tool (runs in a worker thread); exclusive: its whole turn runs serially."""
    time.sleep(IO_SECONDS / 2)
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
    ToolCall(id="c2", name="weather", arguments={"city": "Oslo"}),
    ToolCall(id="c3", name="news", arguments={"topic": "python"}),
    ToolCall(id="c4", name="delete_everything", arguments={}),
    ToolCall(
        id="c5",
        name="weather",
        arguments={},
        arguments_error=ErrorInfo(message="Expecting ',' delimiter: line 1 column 9"),
    ),
)
TURN_2 = (
    ToolCall(id="c6", name="weather", arguments={"city": "Porto"}),
    ToolCall(id="c7", name="report", arguments={"text": "weekly summary"}),
    ToolCall(id="c8", name="news", arguments={"topic": "trio"}),
)
TURNS = (TURN_1, TURN_2)


class DemoModel:
    """A scripted fake model: turn 1 asks for tools, turn 2 summarizes what came back."""

    def __init__(self) -> None:
        self.turns = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.turns += 1
        if self.turns <= len(TURNS):
            text = ("Let me check.", "Now the report.")[self.turns - 1]
            return ModelResponse(
                content=(TextContent(text=text),), tool_calls=TURNS[self.turns - 1]
            )
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
    if event.type == "tool_execution_failed":
        return f"{at}  error     {name:26} {event.error.message}"
    return f"{at}  {event.type.removeprefix('tool_execution_'):9} {name}"


class Timeline:
    """Records when each call started and ended, to draw one timeline per turn."""

    def __init__(self, t0: float) -> None:
        self.t0 = t0
        self.spans: dict[str, list[float]] = {}
        self.blocked: dict[str, str] = {}

    def __call__(self, event: AgentEvent) -> None:
        print(describe(event, self.t0))
        now = time.perf_counter() - self.t0
        if event.type == "tool_execution_started":
            self.spans[event.call.id] = [now, now]
        elif event.type in ("tool_execution_finished", "tool_execution_failed"):
            self.spans.setdefault(event.call.id, [now, now])[1] = now
        elif event.type == "tool_execution_blocked":
            self.blocked[event.call.id] = event.reason

    def draw(self, number: int, calls: tuple[ToolCall, ...], width: int = 40) -> None:
        ran = [self.spans[c.id] for c in calls if c.id in self.spans]
        begin = min(span[0] for span in ran)
        wall = max(span[1] for span in ran) - begin
        scale = width / max(wall, 1e-9)
        print(f"\n== turn {number} timeline ({wall:.2f} s wall)")
        for call in calls:
            label = f"{call.name}#{call.id}"
            if call.id not in self.spans:
                print(f"  {label:22} {'':{width + 2}}  blocked: {self.blocked.get(call.id)}")
                continue
            start, end = (at - begin for at in self.spans[call.id])
            bar = " " * round(start * scale) + "#" * max(1, round((end - start) * scale))
            print(f"  {label:22} |{bar:{width}}|  {start:5.3f}-{end:5.3f} s")
        print(f"  peak in flight: {_peak(ran)} of {len(ran)} calls that ran")


def _peak(spans: list[list[float]]) -> int:
    """Most calls running at the same moment (a call ending exactly as one starts is not both)."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])  # ends first
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return peak


async def main() -> None:
    await anyio.lowlevel.checkpoint()  # load anyio's backend now, not inside the first call
    t0 = time.perf_counter()
    ledger = InMemoryRunLedger()
    agent = Agent(
        provider=DemoModel(),
        model="scripted-demo",
        tools=TOOLS,
        gates=ToolGates(
            permission=create_static_permission_policy(deny=["tool:delete_*:execute"]),
            ledger=ledger,
            redactor=SecretRedactor([API_TOKEN]),
        ),
        loop=LoopOptions(tool_concurrency=4),
    )
    timeline = Timeline(t0)
    print("== events (tool_concurrency=4; turn 2 holds an exclusive tool, so it runs serially)")
    result = await agent.run(
        "Weather in Lisbon and Oslo, python news, save a report.", emit=timeline
    )
    for number, calls in enumerate(TURNS, start=1):
        timeline.draw(number, calls)
    print("\n== transcript")
    for message in result.messages:
        if isinstance(message, UserMessage):
            print(f"user:      {message.content}")
        elif isinstance(message, ToolMessage):
            r = message.result
            print(f"tool:      [{r.tool_call_id}] {render_tool_result(r)}")
        else:
            asked = ", ".join(f"{c.name}#{c.id}" for c in message.tool_calls)
            text = " ".join(getattr(b, "text", "") for b in message.content)
            print(f"assistant: {text}" + (f"  -> calls {asked}" if asked else ""))
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
