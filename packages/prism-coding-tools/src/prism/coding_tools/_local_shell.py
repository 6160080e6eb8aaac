"""Local command execution: own session, merged output pipe, whole-tree kill on timeout/abort."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal as signals
import subprocess
from collections.abc import Callable, Mapping
from typing import Literal

import anyio
import anyio.lowlevel
from anyio.abc import Process

from prism.core import AbortSignal
from prism.core.options import check_flag, check_seconds

from ._exec import ExecRequest, ExecResult, ShellOperations
from ._process_tree import group_exists, signal_tree, tree_pids
from ._supervisor import (
    SUPERVISOR_MARGIN_SECONDS,
    resolve_shell,
    supervised_argv,
    supervisor_available,
)

__all__ = ["LocalShellOperations", "default_shell"]

_READ_SIZE = 262_144
_PIPE_SIZE = 1_048_576
_YIELD_EVERY_BYTES = 1_048_576  # let other tasks run at least this often under a flood
_FLOOD_BYTES = 65_536
_FLOOD_PAUSE_SECONDS = 0.001
_EOF_WAIT_SECONDS = 1.0

Outcome = Literal["exit", "timeout", "abort"]


def default_shell() -> str:
    """``bash`` from ``PATH`` if present, else ``/bin/sh``."""
    return shutil.which("bash") or "/bin/sh"


class LocalShellOperations(ShellOperations):
    """Runs commands on this machine with ``<shell> -c``.

    Each command gets its own session (so its own process group), stdin from ``/dev/null``
    and one pipe for stdout+stderr. On Linux the shell runs under a child-subreaper supervisor
    (``_supervisor``) that, when the shell ends or on timeout/abort, kills every process the
    command started, detached or not, unless ``keep_background_processes`` is true. On timeout
    or abort the group and every process still holding the pipe get SIGTERM, then SIGKILL after
    ``kill_grace_seconds``. After a normal exit, output is drained for up to
    ``exit_drain_seconds``; processes still holding the pipe after that are killed the same way.
    """

    def __init__(
        self,
        *,
        shell_path: str | None = None,
        kill_grace_seconds: float = 2.0,
        exit_drain_seconds: float = 0.5,
        keep_background_processes: bool = False,
    ) -> None:
        where = "LocalShellOperations."
        kill_grace = check_seconds(where + "kill_grace_seconds", kill_grace_seconds, cap=60.0)
        exit_drain = check_seconds(where + "exit_drain_seconds", exit_drain_seconds, cap=60.0)
        check_flag(where + "keep_background_processes", keep_background_processes)
        self.shell_path = shell_path
        self.kill_grace_seconds = kill_grace
        self.exit_drain_seconds = exit_drain
        self.keep_background_processes = keep_background_processes

    def _argv(self, command: str, env: Mapping[str, str]) -> tuple[list[str], float]:
        """The argv to start and the host's grace before SIGKILL (longer when supervised)."""
        search = os.pathsep.join(os.get_exec_path(dict(env)))
        shell = resolve_shell(self.shell_path or default_shell(), search)
        if self.keep_background_processes or not supervisor_available():
            return [shell, "-c", command], self.kill_grace_seconds
        argv = supervised_argv(shell, command, self.kill_grace_seconds, env)
        return argv, self.kill_grace_seconds + SUPERVISOR_MARGIN_SECONDS

    async def run(self, request: ExecRequest) -> ExecResult:
        """Run the request's command; see the class docstring for the kill rules."""
        argv, grace = self._argv(request.command, request.env)
        read_fd, write_fd = os.pipe()
        try:
            set_pipe_size = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
            if set_pipe_size is not None:
                with contextlib.suppress(OSError):
                    fcntl.fcntl(write_fd, set_pipe_size, _PIPE_SIZE)
            os.set_blocking(read_fd, False)
            inode = os.fstat(read_fd).st_ino
            process = await anyio.open_process(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                cwd=request.cwd,
                env=dict(request.env),
                start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        running = _Run(process, read_fd, inode, request.on_data, grace)
        try:
            drain = self.exit_drain_seconds
            return await running.supervise(request.signal, request.timeout_seconds, drain)
        finally:
            with anyio.CancelScope(shield=True):
                await running.cleanup()


class _Run:
    """One running command: pumps the pipe, decides the outcome, kills what is left."""

    def __init__(
        self,
        process: Process,
        fd: int,
        inode: int,
        on_data: Callable[[bytes], None],
        grace: float,
    ) -> None:
        self.process = process
        self.pgid = process.pid  # start_new_session: the shell leads its own group
        self.fd = fd
        self.inode = inode
        self.on_data = on_data
        self.grace = grace
        self.eof = anyio.Event()
        self.settled = False

    async def supervise(
        self, signal: AbortSignal | None, timeout: float | None, drain: float
    ) -> ExecResult:
        async with anyio.create_task_group() as pump_group:
            pump_group.start_soon(self._pump)
            outcome = await self._outcome(signal, timeout)
            if outcome == "exit":
                with anyio.move_on_after(drain):
                    await self.eof.wait()
                if not self.eof.is_set():
                    await self._terminate(pgid=None)
            else:
                await self._terminate(pgid=self.pgid)
            with anyio.move_on_after(_EOF_WAIT_SECONDS):
                await self.eof.wait()
            pump_group.cancel_scope.cancel()
        self.settled = True
        if outcome == "timeout":
            return ExecResult(exit_code=None, timed_out=True)
        if outcome == "abort":
            return ExecResult(exit_code=None, aborted=True)
        return ExecResult(exit_code=self.process.returncode)

    async def _pump(self) -> None:
        since_yield = burst = 0
        try:
            while True:
                try:
                    chunk = os.read(self.fd, _READ_SIZE)
                except BlockingIOError:
                    since_yield = 0
                    if burst >= _FLOOD_BYTES:
                        # Under a flood, let the pipe fill for a moment instead of waking up
                        # for every few KiB: far fewer wake-ups, at most 1 ms more latency.
                        burst = 0
                        await anyio.sleep(_FLOOD_PAUSE_SECONDS)
                    else:
                        burst = 0
                        await anyio.wait_readable(self.fd)
                    continue
                except OSError:
                    return
                if not chunk:
                    return
                self.on_data(chunk)
                since_yield += len(chunk)
                burst += len(chunk)
                if since_yield >= _YIELD_EVERY_BYTES:
                    since_yield = 0
                    await anyio.lowlevel.checkpoint()
        finally:
            self.eof.set()

    async def _outcome(self, signal: AbortSignal | None, timeout: float | None) -> Outcome:
        result: list[Outcome] = []
        async with anyio.create_task_group() as race:

            def finish(outcome: Outcome) -> None:
                if not result:
                    result.append(outcome)
                race.cancel_scope.cancel()

            async def exited() -> None:
                await self.process.wait()
                finish("exit")

            async def aborted(sig: AbortSignal) -> None:
                await sig.wait()
                finish("abort")

            async def timed_out(seconds: float) -> None:
                await anyio.sleep(seconds)
                finish("timeout")

            race.start_soon(exited)
            if signal is not None:
                race.start_soon(aborted, signal)
            if timeout is not None:
                race.start_soon(timed_out, timeout)
        return result[0]

    async def _terminate(self, *, pgid: int | None) -> None:
        """SIGTERM the group (if given) and the pipe holders; SIGKILL what is left after grace."""
        if not signal_tree(pgid, self.inode, signals.SIGTERM):
            return
        with anyio.move_on_after(self.grace):
            delay = 0.005
            while tree_pids(pgid, self.inode):
                await anyio.sleep(delay)
                delay = min(delay * 2, 0.05)
            return
        for _ in range(100):
            if not signal_tree(pgid, self.inode, signals.SIGKILL):
                return
            await anyio.sleep(0.01)

    async def cleanup(self) -> None:
        """Runs shielded: after a failure or cancellation kill the whole tree; always reap."""
        try:
            if not self.settled and (self.process.returncode is None or group_exists(self.pgid)):
                await self._terminate(pgid=self.pgid)
            with anyio.move_on_after(self.grace + 1):
                await self.process.aclose()  # reaps the shell
        finally:
            os.close(self.fd)
