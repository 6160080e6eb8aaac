"""The SDK's own log records from the bridge's connections are demoted to DEBUG.

The SDK logs transport faults (``Error in post_writer`` with a traceback, ``Session
termination failed: 404``) at WARNING or above, and Python prints those to stderr when the
host configured no logging. The bridge reports every fault itself, as a result or an exception,
so records emitted inside one of its connections (marked by a context variable that the SDK's
tasks inherit) are kept at DEBUG on their own loggers. Other users of the SDK are untouched.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar

__all__ = ["in_bridge", "install"]

in_bridge: ContextVar[bool] = ContextVar("prism_mcp_in_bridge", default=False)

_SDK_LOGGERS = (
    "mcp.client.client",
    "mcp.client.session",
    "mcp.client.streamable_http",
    "mcp.client.caching",
    "mcp.client.auth.oauth2",
    "mcp.shared.dispatcher",
    "mcp.shared.jsonrpc_dispatcher",
    "mcp.shared.direct_dispatcher",
)


class _Demote(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG and in_bridge.get():
            record.levelno = logging.DEBUG
            record.levelname = "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


_FILTER = _Demote()


def install() -> None:
    """Attach the filter to the SDK's client loggers (idempotent)."""
    for name in _SDK_LOGGERS:
        log = logging.getLogger(name)
        if _FILTER not in log.filters:
            log.addFilter(_FILTER)
