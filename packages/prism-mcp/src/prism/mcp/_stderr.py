"""Draining a stdio server's stderr cheaply: a big pipe, large reads, a pause after short ones.

Read through the event loop, a server that writes many small lines costs the host a read (and a
loop wake-up) per line, about half a core for a flooding server. We read the pipe ourselves,
non-blocking, up to 1 MiB at a time; after a read that emptied the pipe we pause briefly, so
the data arrives in large batches. Only the tail is kept (the caller drops the rest). A server
that writes faster than that fills the pipe and waits, which only slows that server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable

import anyio

__all__ = ["drain_stderr", "read_rest", "stderr_pipe"]

_READ_BYTES = 1 << 20
_PAUSE_SECONDS = 0.05
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def stderr_pipe() -> tuple[int, int]:
    """A ``(read, write)`` pipe, enlarged to 1 MiB where the OS allows; read end non-blocking."""
    read, write = os.pipe()
    with contextlib.suppress(OSError):
        fcntl.fcntl(read, _F_SETPIPE_SZ, _READ_BYTES)
    os.set_blocking(read, False)
    return read, write


async def drain_stderr(fd: int, keep: Callable[[bytes], None]) -> None:
    """Read ``fd`` until EOF (or cancellation), handing each chunk to ``keep``.

    The caller owns ``fd`` and closes it after this task has ended.
    """
    while True:
        await anyio.wait_readable(fd)
        try:
            data = os.read(fd, _READ_BYTES)
        except BlockingIOError:
            continue
        except OSError:
            return
        if not data:
            return
        keep(data)
        if len(data) < _READ_BYTES:
            await anyio.sleep(_PAUSE_SECONDS)


def read_rest(fd: int, keep: Callable[[bytes], None], *, reads: int = 8) -> None:
    """Hand on what is still in the pipe (at most ``reads`` large reads), without waiting."""
    for _ in range(reads):
        try:
            data = os.read(fd, _READ_BYTES)
        except OSError:  # BlockingIOError: empty for now
            return
        if not data:
            return
        keep(data)
