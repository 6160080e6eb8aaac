"""A Prism registry served with ``prism.mcp.server``: every content type, progress, faults.

Run: ``python prism_served.py stdio`` or ``python prism_served.py http PORT [TOKEN]``.
``PRISM_SERVED_MARKERS`` names a directory where tools leave markers (cancellation, approval).
Tests that need no process build the same server in-process with ``build()``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio

from prism.core import (
    AudioContent,
    ExecutionAction,
    ExecutionDecision,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolPipeline,
    ToolRegistry,
    ToolResult,
    assert_execution_allowed,
    create_static_permission_policy,
)
from prism.mcp.server import (
    BearerTokens,
    HttpOptions,
    McpApproval,
    McpToolServer,
    ServeOptions,
    SessionLimits,
    ask_client,
    log_to_client,
    serve_tools,
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="  # noqa: E501


def mark(markers: Path, name: str) -> None:
    if markers.is_dir():
        (markers / name).write_text("1")


async def echo(args: Any, ctx: ToolExecutionContext) -> str:
    return str(args.get("text", ""))


async def everything(args: Any, ctx: ToolExecutionContext) -> ToolResult:
    return ToolResult(
        tool_call_id=ctx.tool_call_id,
        name="everything",
        content=(
            TextContent(text="all five"),
            ImageContent(data=PNG, mime_type="image/png"),
            AudioContent(data="UklGRgAAAABXQVZF", mime_type="audio/wav"),
            ResourceContent(uri="file:///notes.txt", mime_type="text/plain", text="notes"),
            ResourceContent(
                uri="file:///blob.bin", mime_type="application/octet-stream", blob="AAEC"
            ),
            ResourceLinkContent(
                uri="file:///big.log", name="big.log", description="a log", size=10
            ),
        ),
    )


async def stats(args: Any, ctx: ToolExecutionContext) -> dict[str, int]:
    return {"files": 3, "lines": 120}


async def fail(args: Any, ctx: ToolExecutionContext) -> str:
    raise LookupError("no such row")


async def steps(args: Any, ctx: ToolExecutionContext) -> str:
    for index in range(3):
        await ctx.progress((index + 1) / 3, f"step {index + 1}")
    return "stepped"


async def big(args: Any, ctx: ToolExecutionContext) -> str:
    return "x" * int(args.get("size", 1000))


async def noisy(args: Any, ctx: ToolExecutionContext) -> str:
    print("stray output that must not reach the wire")
    os.write(1, b"raw bytes on fd 1\n")
    return "still fine"


class AskTheUser:
    """An execution policy that always asks, through the served approval callback."""

    def __init__(self, approval: McpApproval) -> None:
        self.approval = approval

    def check(self, action: ExecutionAction) -> Any:
        return self._decide(action)

    async def _decide(self, action: ExecutionAction) -> ExecutionDecision:
        class Prompt:
            signal = action.signal

            @staticmethod
            def describe() -> str:
                return f"{action.kind} {action.operation}"

        approved = await self.approval(Prompt())
        return ExecutionDecision(allowed=approved, reason=None if approved else "the user said no")


async def chatty(args: Any, ctx: ToolExecutionContext) -> dict[str, bool]:
    sent = {}
    for level in ("debug", "info", "warning"):
        sent[level] = await log_to_client(level, {"step": level}, logger="chatty")  # type: ignore[arg-type]
    return sent


TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def ask_name(args: Any, ctx: ToolExecutionContext) -> str:
    answer = await ask_client("What is your name?", NAME_FORM, timeout_seconds=10)
    if answer is None:
        return "no one to ask"
    if answer.action != "accept" or answer.content is None:
        return f"the user chose {answer.action}"
    return f"hello {answer.content['name']}"


def build(markers: Path, fallback: str | None = None) -> McpToolServer:
    """A fresh served registry; tools leave markers in ``markers``; ``fallback`` ("yes"/"no")
    is the host's own answer to approvals when the client cannot be asked."""
    approval = McpApproval(
        timeout_seconds=10, approver=None if fallback is None else (lambda _: fallback == "yes")
    )

    async def hang(args: Any, ctx: ToolExecutionContext) -> str:
        mark(markers, "hang-started")
        try:
            await anyio.sleep(60)
        finally:
            mark(markers, "hang-cancelled")
        return "never"

    async def deploy(args: Any, ctx: ToolExecutionContext) -> str:
        action = ExecutionAction(kind="deploy", operation="prod")
        await assert_execution_allowed(AskTheUser(approval), action)
        mark(markers, "deployed")
        return "deployed"

    registry = ToolRegistry(
        [
            ToolDefinition(name="echo", execute=echo, description="Echo text", parameters=TEXT),
            ToolDefinition(name="everything", execute=everything),
            ToolDefinition(name="stats", execute=stats, read_only=True),
            ToolDefinition(name="fail", execute=fail),
            ToolDefinition(name="steps", execute=steps),
            ToolDefinition(name="hang", execute=hang),
            ToolDefinition(name="big", execute=big),
            ToolDefinition(name="noisy", execute=noisy),
            ToolDefinition(name="deploy", execute=deploy),
            ToolDefinition(name="chatty", execute=chatty),
            ToolDefinition(name="ask_name", execute=ask_name),
            ToolDefinition(name="rm", execute=echo),
        ]
    )  # fmt: skip

    async def add_tool(args: Any, ctx: ToolExecutionContext) -> str:
        registry.register(ToolDefinition(name=str(args["name"]), execute=echo))
        return "added"

    registry.register(ToolDefinition(name="add_tool", execute=add_tool))
    pipeline = ToolPipeline(
        registry=registry,
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:rm:*"])),
    )
    return McpToolServer(pipeline, ServeOptions(name="prism-served", max_result_bytes=100_000))


def main() -> None:
    markers = Path(os.environ.get("PRISM_SERVED_MARKERS", "/nonexistent"))
    server = build(markers, os.environ.get("PRISM_SERVED_FALLBACK"))
    if sys.argv[1] == "stdio":
        anyio.run(serve_tools, server)
        return
    token = sys.argv[3] if len(sys.argv) > 3 else None
    # PRISM_SERVED_SESSIONS="max_sessions,max_requests_per_session[,idle_seconds]".
    bounds = [float(n) for n in os.environ.get("PRISM_SERVED_SESSIONS", "64,16").split(",")]
    sessions = SessionLimits(
        max_sessions=int(bounds[0]),
        max_requests_per_session=int(bounds[1]),
        idle_seconds=bounds[2] if len(bounds) > 2 else 600.0,
    )
    if token is None:
        http = HttpOptions(port=int(sys.argv[2]), allow_unauthenticated=True, sessions=sessions)
    else:
        verifier = BearerTokens([token])
        http = HttpOptions(port=int(sys.argv[2]), token_verifier=verifier, sessions=sessions)
    anyio.run(lambda: serve_tools(server, transport="http", http=http))


if __name__ == "__main__":
    main()
