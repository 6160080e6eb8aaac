"""The operator's out-of-band approvers: a command that answers by its exit status, or a
question on the server's terminal."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import anyio

from prism.mcp.server import McpApproval

__all__ = ["APPROVAL_ENV", "CommandApprover", "TtyApprover", "approval_for"]

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


_MAX_ANSWER = 256


class TtyApprover:
    """Asks on a terminal (the server's ``/dev/tty``), one question at a time: ``y`` or ``yes``
    approves; anything else, or no answer within ``timeout_seconds``, denies. Keys typed
    before the question are discarded."""

    __slots__ = ("_lock", "path", "timeout_seconds")

    def __init__(self, timeout_seconds: float, path: str = "/dev/tty") -> None:
        self.path = path
        self.timeout_seconds = timeout_seconds
        self._lock = anyio.Lock()

    async def __call__(self, request: object) -> bool:
        describe = getattr(request, "describe", None)
        text = str(describe()) if callable(describe) else str(request)
        async with self._lock:
            fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                _drain(fd)
                question = f"\nprism-coding-server: allow {text!r}? [y/N] "
                os.write(fd, question.encode("utf-8", "replace"))
                answer = b""
                with anyio.move_on_after(self.timeout_seconds):
                    answer = await _read_line(fd)
            finally:
                os.close(fd)
        return answer.strip().lower() in (b"y", b"yes")


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError, OSError):
        while os.read(fd, 4096):
            pass


async def _read_line(fd: int) -> bytes:
    line = b""
    while b"\n" not in line and b"\r" not in line and len(line) < _MAX_ANSWER:
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, _MAX_ANSWER)
        except BlockingIOError:
            continue
        if not chunk:
            break
        line += chunk
    return line.splitlines()[0] if line.strip() else b""


def approval_for(
    command: tuple[str, ...] | None, timeout_seconds: float, *, tty: bool = False
) -> McpApproval:
    """The served tools' approve callback: the owning client's user, else the operator's
    approver (``command``, or the terminal when ``tty``)."""
    approver: CommandApprover | TtyApprover | None = None
    if command is not None:
        approver = CommandApprover(command, timeout_seconds)
    elif tty:
        approver = TtyApprover(timeout_seconds)
    return McpApproval(approver=approver, timeout_seconds=timeout_seconds)
