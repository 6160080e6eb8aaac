"""MCP client bridge for Prism: stdio, Streamable HTTP and in-memory; bounded and fault-tolerant.

``connect_mcp_tools`` turns the tools of one MCP server into Prism ``ToolDefinition``s whose
calls a hostile or broken server cannot hang, flood or confuse. Importing this package does not
load the MCP SDK (nor httpx2 or pydantic); the first connect does.
"""

from typing import TYPE_CHECKING

from . import _errors
from ._connect import connect_mcp_tools
from ._errors import *  # noqa: F403 (the exceptions and error codes, listed in _errors.__all__)
from ._feature_types import (
    ElicitationRequest,
    ElicitationResponse,
    McpClientFeatures,
    SamplingRequest,
    SamplingResponse,
)
from ._oauth import (
    InMemoryTokenStorage,
    McpOAuth,
    McpOAuthAuthorizationCode,
    McpOAuthClientCredentials,
    McpTokenStorage,
)
from ._options import CallFaultPolicy, McpBridgeOptions, ProtocolMode, ToolsChangedCallback
from ._transports import (
    InMemoryTransport,
    McpTransport,
    StdioTransport,
    StreamableHttpTransport,
)

if TYPE_CHECKING:
    from ._bridge import McpToolBridge

__all__ = [
    "CallFaultPolicy",
    "ElicitationRequest",
    "ElicitationResponse",
    "InMemoryTokenStorage",
    "InMemoryTransport",
    "McpBridgeOptions",
    "McpClientFeatures",
    "McpOAuth",
    "McpOAuthAuthorizationCode",
    "McpOAuthClientCredentials",
    "McpTokenStorage",
    "McpToolBridge",
    "McpTransport",
    "ProtocolMode",
    "SamplingRequest",
    "SamplingResponse",
    "StdioTransport",
    "StreamableHttpTransport",
    "ToolsChangedCallback",
    "connect_mcp_tools",
]
__all__ += _errors.__all__


def __getattr__(name: str) -> object:
    """``McpToolBridge`` is imported on first use: its module loads the MCP SDK."""
    if name == "McpToolBridge":
        from ._bridge import McpToolBridge

        return McpToolBridge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
