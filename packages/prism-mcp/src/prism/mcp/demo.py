"""A small MCP server to try Prism's MCP client with: ``python -m prism.mcp.demo [--label NAME]``.

It serves its tools over stdio through Prism's own MCP server (``prism.mcp.server``): ``echo``
returns its ``text``; ``search`` returns ``"<label>:<query>"``, so answers from two servers
started with different labels can be told apart; ``add_tool`` adds a tool called ``name`` (which
returns its own name), so the server announces ``list_changed``. The docs' examples use it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any

import anyio

from prism.core import ToolDefinition, ToolExecutionContext, ToolPipeline, ToolRegistry

__all__ = ["demo_tools", "main"]

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_MAX_TOOLS = 64


def _text_schema(field: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field],
        "additionalProperties": False,
    }


def demo_tools(label: str = "demo") -> ToolRegistry:
    """The demo's tools: ``echo``, ``search`` (answers ``"<label>:<query>"``) and ``add_tool``."""
    if not isinstance(label, str) or not _LABEL.match(label):
        error = ValueError if isinstance(label, str) else TypeError
        raise error(f"demo_tools.label must be a str matching {_LABEL.pattern}, got {label!r:.200}")

    def echo(args: Any, ctx: ToolExecutionContext) -> str:
        return str(args["text"])

    def search(args: Any, ctx: ToolExecutionContext) -> str:
        return f"{label}:{args['query']}"

    registry = ToolRegistry(duplicate="error")

    def add_tool(args: Any, ctx: ToolExecutionContext) -> str:
        name = str(args["name"])
        if not _LABEL.match(name) or name in registry:
            raise ValueError(
                f"add_tool.name must be a new tool name matching {_LABEL.pattern}, got "
                f"{name!r:.200}"
            )
        if len(registry) >= _MAX_TOOLS:
            raise ValueError(f"demo server {label!r}: holds at most {_MAX_TOOLS} tools")
        registry.register(
            ToolDefinition(
                name=name,
                description="Added at run time; returns its name.",
                execute=lambda args, ctx: name,
            )
        )
        return f"added {name}"

    for tool in (
        ToolDefinition(
            name="echo",
            description="Return the text.",
            parameters=_text_schema("text"),
            execute=echo,
        ),
        ToolDefinition(
            name="search",
            description="Return the query and this server's label.",
            parameters=_text_schema("query"),
            execute=search,
        ),
        ToolDefinition(
            name="add_tool",
            description="Add a tool called `name` that returns its name.",
            parameters=_text_schema("name"),
            execute=add_tool,
        ),
    ):
        registry.register(tool)
    return registry


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the demo tools on stdin/stdout until the client leaves."""
    parser = argparse.ArgumentParser(
        prog="python -m prism.mcp.demo", description=__doc__, allow_abbrev=False
    )
    parser.add_argument("--label", default="demo", help="the label search answers with")
    args = parser.parse_args(argv)
    try:
        registry = demo_tools(args.label)
    except ValueError as exc:
        parser.error(f"--label: {exc}")
    from prism.mcp.server import McpToolServer, ServeOptions, run_stdio

    server = McpToolServer(
        ToolPipeline(registry=registry), ServeOptions(name=f"prism-demo-{args.label}")
    )
    anyio.run(run_stdio, server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
