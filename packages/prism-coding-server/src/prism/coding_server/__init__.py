"""A ready MCP server: Prism's coding tools confined to a root, under the coding policy, with
the shell in a bubblewrap sandbox. See docs/mcp-server.md."""

from ._build import BuiltServer, SandboxRequiredError, build_server
from ._cli import main
from ._ledger import JsonLinesLedger
from ._options import CodingServerOptions

__all__ = [
    "BuiltServer",
    "CodingServerOptions",
    "JsonLinesLedger",
    "SandboxRequiredError",
    "build_server",
    "main",
]
