"""MCP serving benchmark: a no-op tool on Prism's ``McpToolServer`` vs the SDK's ``MCPServer``.

Run: ``uv run --group bench python scripts/bench/mcp_server.py [--quick]``. Both servers run over
stdio in their own process and are called from the same SDK client (``mcp.Client``) in one run,
in interleaved batches, so load drift hits both alike. Prints the median µs per call of each
beside its best batch and the ratio (target: Prism ≤ 1.2× the SDK server).

The script is also its own server: ``--serve prism`` / ``--serve sdk`` (stdio).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

import anyio
from _common import (
    Batch,
    Figures,
    baseline_table,
    bench_parser,
    fmt_ratio,
    header,
    measure_async,
    targets_table,
    time_async_calls,
)
from mcp import Client, StdioServerParameters

HERE = __file__
COMMAND = "uv run --group bench python scripts/bench/mcp_server.py"
TARGET = 1.2


def serve_prism() -> None:
    """A no-op tool behind Prism's whole pipeline, served over stdio."""
    from prism.core import ToolDefinition, ToolExecutionContext, ToolPipeline, ToolRegistry
    from prism.mcp.server import McpToolServer, ServeOptions, serve_tools

    async def noop(args: Any, ctx: ToolExecutionContext) -> str:
        return "ok"

    schema: dict[str, Any] = {"type": "object", "properties": {}}
    tool = ToolDefinition(name="noop", execute=noop, description="Do nothing", parameters=schema)
    pipeline = ToolPipeline(registry=ToolRegistry([tool]))
    anyio.run(serve_tools, McpToolServer(pipeline, ServeOptions(name="bench")))


def serve_sdk() -> None:
    """The same no-op tool on the SDK's ``MCPServer``, over stdio."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def noop() -> str:
        """Do nothing."""
        return "ok"

    server.run("stdio")


async def measure(repeats: int, per_batch: int) -> dict[str, Figures]:
    """Seconds per ``noop`` call for each server (median and best batch)."""
    async with contextlib.AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for name in ("sdk", "prism"):
            params = StdioServerParameters(command=sys.executable, args=[HERE, "--serve", name])
            clients[name] = await stack.enter_async_context(Client(params))

        def batch(client: Any) -> Batch:
            return lambda: time_async_calls(lambda: client.call_tool("noop", {}), per_batch)

        with anyio.fail_after(600):
            return await measure_async(
                {name: batch(client) for name, client in clients.items()}, repeats
            )


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--serve", choices=("prism", "sdk"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        (serve_prism if args.serve == "prism" else serve_sdk)()
        return
    repeats, per_batch = (3, 50) if args.quick else (15, 200)
    figures = anyio.run(measure, repeats, per_batch)
    ratio = figures["prism"].median / figures["sdk"].median
    print(header(COMMAND + (" --quick" if args.quick else ""), "no-op tool over stdio"))
    names = {"sdk": "SDK MCPServer", "prism": "Prism McpToolServer"}
    print(baseline_table({names[k]: figures[k] for k in ("sdk", "prism")}, names["sdk"], "server"))
    print()
    target = (f"served call ≤ {TARGET}× the SDK server", fmt_ratio(ratio), ratio <= TARGET)
    print(targets_table([target]))


if __name__ == "__main__":
    main()
