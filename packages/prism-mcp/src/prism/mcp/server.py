"""Prism as an MCP server: any Prism registry served to any MCP client, every call through
Prism's whole pipeline (filter, permission, validation, execution policy, redaction, events,
ledger). See docs/mcp-server.md.
"""

from ._serve._approval import McpApproval, NoApproverError
from ._serve._auth import (
    APPROVE_SCOPE,
    BearerTokens,
    new_token,
    read_token_file,
    remove_token_file,
    write_token_file,
)
from ._serve._client_io import LogLevel, ask_client, log_to_client
from ._serve._options import Authorize, HttpOptions, ServeOptions, SessionLimits
from ._serve._results import ERROR_META_KEY
from ._serve._run import http_app, run_http, run_stdio, serve_tools
from ._serve._server import McpToolServer

__all__ = [
    "APPROVE_SCOPE",
    "ERROR_META_KEY",
    "Authorize",
    "BearerTokens",
    "HttpOptions",
    "LogLevel",
    "McpApproval",
    "McpToolServer",
    "NoApproverError",
    "ServeOptions",
    "SessionLimits",
    "ask_client",
    "http_app",
    "log_to_client",
    "new_token",
    "read_token_file",
    "remove_token_file",
    "run_http",
    "run_stdio",
    "serve_tools",
    "write_token_file",
]
