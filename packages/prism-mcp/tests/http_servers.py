"""Start a test server script from ``servers/`` on a free 127.0.0.1 port (HTTP tests)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio

from prism.core.testing import scaled

from .conftest import SERVERS, free_port


@contextlib.asynccontextmanager
async def serve(kit: Any, script: str, *extra: str) -> AsyncIterator[str]:
    """A test server on a free port; its process group is killed afterwards."""
    port = free_port()
    proc = await anyio.open_process(
        [sys.executable, str(SERVERS / script), str(port), *extra],
        env={**os.environ, **kit.env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        with anyio.fail_after(scaled(30)):
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                except OSError:
                    await anyio.sleep(0.05)
                else:
                    await stream.aclose()
                    break
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
