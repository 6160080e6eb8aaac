"""The operator's out-of-band approver: a command that answers by its exit status."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import anyio

from prism.mcp.server import McpApproval

__all__ = ["APPROVAL_ENV", "CommandApprover", "approval_for"]

APPROVAL_ENV = "PRISM_APPROVAL_REQUEST"
"""Environment variable carrying the one-line description of what is to be approved."""
_ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "DISPLAY", "WAYLAND_DISPLAY", "USER")


class CommandApprover:
    """Runs ``argv`` per approval with the request on stdin and in ``$PRISM_APPROVAL_REQUEST``;
    exit status 0 approves, anything else (or no answer in time) denies. The command runs in
    its own process group, killed when the wait ends."""

    __slots__ = ("argv", "timeout_seconds")

    def __init__(self, argv: tuple[str, ...], timeout_seconds: float) -> None:
        self.argv = argv
        self.timeout_seconds = timeout_seconds

    async def __call__(self, request: object) -> bool:
        describe = getattr(request, "describe", None)
        text = str(describe()) if callable(describe) else str(request)
        env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP}
        env[APPROVAL_ENV] = text
        process = await anyio.open_process(
            list(self.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=None,
            env=env,
            start_new_session=True,
        )
        try:
            with anyio.move_on_after(self.timeout_seconds):
                if process.stdin is not None:
                    with contextlib.suppress(OSError, anyio.BrokenResourceError):
                        await process.stdin.send(text.encode() + b"\n")
                    await process.stdin.aclose()
                return await process.wait() == 0
            return False
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                await process.wait()


def approval_for(command: tuple[str, ...] | None, timeout_seconds: float) -> McpApproval:
    """The served tools' approve callback: the owning client's user, else ``command``."""
    approver = None if command is None else CommandApprover(command, timeout_seconds)
    return McpApproval(approver=approver, timeout_seconds=timeout_seconds)
