"""Supervising one sandbox process: start marker, streamed output, timeout and abort kill."""

from __future__ import annotations

import math
import os
import signal as signals
import subprocess
from collections.abc import Callable, Sequence

import anyio
from anyio.abc import ByteReceiveStream, Process

from prism.coding_tools import ExecRequest, ExecResult
from prism.core import AbortSignal

from ._protocol import SandboxUnavailableError

__all__ = ["run_supervised"]

DRAIN_SECONDS = 2.0
"""How long to keep reading output after the sandbox exited or was killed."""
MAX_STARTUP_TEXT = 4096


class _Gate:
    """Holds output back until the in-sandbox prologue confirmed the sandbox is up.

    Before the marker arrives, anything on stdout is bubblewrap's own diagnostics; it becomes
    the error message when the sandbox fails to start instead of reaching the command output.
    """

    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        self.on_data = on_data
        self.started = False
        self.held = bytearray()

    def data(self, chunk: bytes) -> None:
        if self.started:
            self.on_data(chunk)
        else:
            self.held += chunk

    def start(self) -> None:
        self.started = True
        if self.held:
            held, self.held = bytes(self.held), bytearray()
            self.on_data(held)


async def _pump(stream: ByteReceiveStream, gate: _Gate) -> None:
    try:
        async for chunk in stream:
            gate.data(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        return


async def _watch_marker(fd: int, marker: bytes, gate: _Gate) -> None:
    received = b""
    while len(received) < len(marker):
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, len(marker) - len(received))
        except BlockingIOError:
            continue
        if not chunk:
            return
        received += chunk
    if received == marker:
        gate.start()


async def _cancel_on_abort(signal: AbortSignal, scope: anyio.CancelScope) -> None:
    await signal.wait()
    scope.cancel()


def _kill(process: Process) -> None:
    """SIGKILL bwrap's process group; --die-with-parent + the pid namespace take the rest."""
    try:
        os.killpg(process.pid, signals.SIGKILL)
    except ProcessLookupError:
        pass


async def _reap(process: Process) -> None:
    with anyio.CancelScope(shield=True), anyio.move_on_after(DRAIN_SECONDS * 5):
        await process.wait()


async def run_supervised(
    argv: Sequence[str],
    request: ExecRequest,
    *,
    marker_read: int,
    marker_write: int,
    marker: bytes,
    extra_fds: Sequence[int] = (),
) -> ExecResult:
    """Start ``argv`` (bwrap running ``request``) in its own session and supervise it to
    completion, timeout or abort. ``extra_fds`` are inherited by the child (the seccomp
    program); the caller closes them.
    """
    signal, timeout_seconds = request.signal, request.timeout_seconds
    os.set_blocking(marker_read, False)
    try:
        process = await anyio.open_process(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd="/",
            env=dict(request.env),
            start_new_session=True,
            pass_fds=(marker_write, *extra_fds),
        )
    except OSError as error:
        raise SandboxUnavailableError(
            f"cannot start bubblewrap ({argv[0]}): {error.strerror or error}; the command was "
            "not run"
        ) from error
    finally:
        os.close(marker_write)
    gate = _Gate(request.on_data)
    finished = False
    try:
        with anyio.move_on_after(math.inf if timeout_seconds is None else timeout_seconds):
            finished = await _supervise(process, marker_read, marker, gate, signal)
    finally:
        if not finished:
            _kill(process)
        await _reap(process)
        await process.aclose()
    return _result(process, gate, finished=finished, signal=signal)


async def _supervise(
    process: Process, marker_read: int, marker: bytes, gate: _Gate, signal: AbortSignal | None
) -> bool:
    """Stream until exit, then drain briefly; ``True`` once the process exited on its own."""
    assert process.stdout is not None
    pumped, marked = anyio.Event(), anyio.Event()

    async def pump() -> None:
        await _pump(process.stdout, gate)  # type: ignore[arg-type]
        pumped.set()

    async def watch() -> None:
        await _watch_marker(marker_read, marker, gate)
        marked.set()

    finished = False
    async with anyio.create_task_group() as group:
        if signal is not None:
            group.start_soon(_cancel_on_abort, signal, group.cancel_scope)
        group.start_soon(watch)
        group.start_soon(pump)
        await process.wait()
        finished = True
        with anyio.move_on_after(DRAIN_SECONDS):
            await pumped.wait()
            await marked.wait()
        group.cancel_scope.cancel()
    return finished


def _result(
    process: Process, gate: _Gate, *, finished: bool, signal: AbortSignal | None
) -> ExecResult:
    if not finished:
        if signal is not None and signal.aborted:
            return ExecResult(exit_code=None, aborted=True)
        return ExecResult(exit_code=None, timed_out=True)
    if not gate.started:
        text = bytes(gate.held[:MAX_STARTUP_TEXT]).decode("utf-8", "replace").strip()
        raise SandboxUnavailableError(
            f"the bubblewrap sandbox could not start (exit {process.returncode}): "
            f"{text or 'no diagnostics'}; the command was not run"
        )
    return ExecResult(exit_code=process.returncode)
