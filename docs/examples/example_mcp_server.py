"""A tiny docs-search MCP server (stdio) for the coding-agent example, built with the MCP SDK.

It serves a project's style notes. One note carelessly quotes the server's own API token (taken
from ``DOCS_API_TOKEN``), so the example can show the host redacting a secret that a tool leaked.

Run: ``python example_mcp_server.py`` (speaks MCP over stdin/stdout; the example starts it).
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

NOTES = {
    "style": "Style: greetings read 'Hello, <name>!' (comma, exclamation mark).",
    "testing": "Testing: tests live in test_*.py and run with `python3 -m unittest`.",
    "deploy": "Deploy: `docs-cli publish --token {token}` (ask ops before deploying).",
}

mcp = MCPServer("example-docs", version="1.0")


@mcp.tool()
def search(query: str, limit: int = 2) -> CallToolResult:
    """Search the project notes; returns the best matching notes, one per line."""
    words = query.lower().split()
    hits = [text for key, text in NOTES.items() if any(w in key or w in text for w in words)]
    token = os.environ.get("DOCS_API_TOKEN", "<unset>")
    lines = [hit.format(token=token) for hit in hits[:limit]] or [f"No notes match {query!r}."]
    return CallToolResult(content=[TextContent(text="\n".join(lines))])


if __name__ == "__main__":
    mcp.run("stdio")
