#!/usr/bin/env python3
"""Print the real span tree of a tool call under pydantic-ai and the OpenAI Agents SDK.

Runs each framework with a scripted model (the only fake), Prism's ``ToolTelemetry``, the real
OpenTelemetry SDK and an in-memory exporter, then renders the exported spans as a tree. Three
calls: ``add`` (finishes, its handler opens ``add inner``), ``rm`` (denied) and ``boom`` (raises).
docs/otel.md holds the output between its ``otel-trees`` markers; ``--check`` compares.

Usage: scripts/otel_trees.py [--check PAGE | --write PAGE]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from prism.core import (
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    create_static_permission_policy,
)
from prism.otel import ToolTelemetry

START, END = "<!-- otel-trees:start -->", "<!-- otel-trees:end -->"
SHOWN = ("gen_ai.tool.call.id", "prism.outcome", "error.type", "prism.policy.decision")


def three_calls(telemetry: ToolTelemetry, provider: TracerProvider) -> ToolPipeline:
    """``add`` (opens ``add inner``), ``rm`` (denied), ``boom`` (raises), traced by ``telemetry``.

    packages/prism-otel/tests/test_framework_spans.py runs the same pipeline, so the trees shown
    in docs/otel.md are the ones the tests check."""
    tracer = provider.get_tracer("tool")

    async def add(args: Any, ctx: ToolExecutionContext) -> str:
        with tracer.start_as_current_span("add inner"):
            return str(args["a"] + args["b"])

    async def boom(args: Any, ctx: ToolExecutionContext) -> str:
        raise LookupError("no such row")

    schema = {"type": "object"}
    tools = [
        ToolDefinition(name="add", execute=add, parameters=schema),
        ToolDefinition(name="rm", execute=add, parameters=schema),
        ToolDefinition(name="boom", execute=boom, parameters=schema),
    ]
    return ToolPipeline(
        registry=telemetry.instrument(ToolRegistry(tools)),
        emit=telemetry,
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:rm:*"])),
    )


def _pipeline(provider: TracerProvider) -> ToolPipeline:
    return three_calls(ToolTelemetry(tracer_provider=provider), provider)


async def pydantic_ai_spans(provider: TracerProvider) -> None:
    """One pydantic-ai run (its own instrumentation on) under a host span."""
    from pydantic_ai import Agent, InstrumentationSettings
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from prism.pydantic_ai import PrismToolset

    turns = [
        [ToolCallPart(n, {"a": 1, "b": 2}, tool_call_id=f"c-{n}") for n in ("add", "rm", "boom")]
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=list(turns.pop(0)) if turns else [TextPart("done")])

    agent = Agent(
        FunctionModel(respond),
        toolsets=[PrismToolset(_pipeline(provider))],
        capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))],
    )
    with provider.get_tracer("host").start_as_current_span("host request"):
        await agent.run("go")


async def openai_agents_spans(provider: TracerProvider) -> None:
    """One Agents SDK run, its tracing bridged by ``OpenAIAgentsBridge``, under a host span."""
    from agents import Agent, Runner, set_trace_processors
    from agents.testing import ScriptedModel, assistant_message, function_call

    from prism.openai_agents import prism_function_tools
    from prism.otel.openai_agents import OpenAIAgentsBridge

    set_trace_processors([OpenAIAgentsBridge(tracer_provider=provider)])
    calls = [function_call(n, {"a": 1, "b": 2}, call_id=f"c-{n}") for n in ("add", "rm", "boom")]
    model = ScriptedModel([calls, [assistant_message("done")]])
    agent = Agent(name="scripted", model=model, tools=prism_function_tools(_pipeline(provider)))
    with provider.get_tracer("host").start_as_current_span("host request"):
        await Runner.run(agent, "go")


def render(spans: list[ReadableSpan]) -> list[str]:
    """The spans as an indented tree; siblings in name order (tool calls may run in parallel)."""
    ids = {s.context.span_id for s in spans}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = (
            span.parent.span_id if span.parent is not None and span.parent.span_id in ids else None
        )
        children.setdefault(parent, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in sorted(children.get(parent, []), key=lambda s: (s.name, s.start_time or 0)):
            attributes = dict(span.attributes or {})
            shown = " ".join(f"{k}={attributes[k]}" for k in SHOWN if k in attributes)
            line = f"{'    ' * depth}{span.name}  [{span.status.status_code.name}]"
            lines.append(f"{line}  {shown}".rstrip())
            walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return lines


def section() -> str:
    """The Markdown the docs hold between the markers."""
    parts = [START]
    for title, run in (
        ("pydantic-ai (`Instrumentation` capability on)", pydantic_ai_spans),
        ("OpenAI Agents SDK (tracing bridged with `OpenAIAgentsBridge`)", openai_agents_spans),
    ):
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        asyncio.run(run(provider))
        provider.shutdown()
        tree = render(list(exporter.get_finished_spans()))
        parts += ["", f"{title}:", "", "```text", *tree, "```"]
    parts += ["", END]
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", type=Path, metavar="PAGE", help="exit 1 if PAGE differs")
    group.add_argument("--write", type=Path, metavar="PAGE", help="rewrite PAGE's section")
    args = parser.parse_args()
    text = section()
    page = args.check or args.write
    if page is None:
        print(text)
        return 0
    current = page.read_text(encoding="utf-8")
    if current.count(START) != 1 or current.count(END) != 1:
        print(f"{page}: expected one {START} and one {END} marker", file=sys.stderr)
        return 2
    head, rest = current.split(START)
    updated = head + text + rest.split(END, 1)[1]
    if args.write is not None:
        page.write_text(updated, encoding="utf-8")
        return 0
    if updated != current:
        print(f"{page}: the span trees are stale; run scripts/otel_trees.py --write {page}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
