"""Connection guards below HTTP: a connection that has not sent a complete request header
within a deadline is closed, and past a connection cap the oldest idle connection is closed
to admit a new one, so idle or half-open sockets cannot use every file descriptor."""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["connection_cap", "guarded_protocol"]

_RESERVED_FDS = 64
"""Descriptors kept for everything but client sockets (pipes of tool subprocesses, files)."""


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered to fit this process's descriptor limit (minus a reserve)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft - max(_RESERVED_FDS, soft // 4)))


def _idle(protocol: H11Protocol) -> bool:
    """No request in progress: none began yet (headers incomplete), or kept alive after one."""
    cycle = protocol.cycle
    return cycle is None or bool(cycle.response_complete)


def guarded_protocol(max_connections: int, header_timeout_seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the two guards (pass as ``uvicorn.Config(http=...)``)."""

    class GuardedH11Protocol(H11Protocol):
        """H11 with a header deadline and a cap that evicts the oldest idle connection."""

        _opened: float = 0.0
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._opened = self.loop.time()
            self._header_timer = self.loop.call_later(header_timeout_seconds, self._no_header)
            if len(self.connections) > max_connections:
                _close_oldest_idle(self.connections, keep=self)

        def _no_header(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)

    return GuardedH11Protocol


def _close_oldest_idle(connections: set[Any], *, keep: H11Protocol) -> None:
    """Close the idle connection opened first (never ``keep``); none idle: close ``keep``."""
    oldest: H11Protocol | None = None
    for protocol in connections:
        if protocol is keep or not isinstance(protocol, H11Protocol) or not _idle(protocol):
            continue
        if oldest is None or getattr(protocol, "_opened", 0.0) < getattr(oldest, "_opened", 0.0):
            oldest = protocol
    victim = keep if oldest is None else oldest
    victim.connections.discard(victim)
    victim.transport.close()
