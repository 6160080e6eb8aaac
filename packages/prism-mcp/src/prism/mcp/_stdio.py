"""Our own stdio transport: a linear, byte-capped reader and a process-group kill on close.

The SDK's ``stdio_client`` joins each line with string concatenation (quadratic) and has no
size limit, so a server can grow client memory without bound. Here each line is collected in a
``bytearray`` up to ``max_message_bytes``; past that the rest of the line is discarded and the
request it answers (its ``id`` is recovered from the head or tail) fails at once. The server
runs in its own session; on close the whole process group is killed, grandchildren included.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.abc

from mcp import types
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from ._deep import shallow_tools
from ._limits import RequestId, cap_note, complexity_problem, head_id, tail_id
from ._stderr import drain_stderr, read_rest, stderr_pipe
from ._transports import StdioTransport

__all__ = ["INJECTED_MALFORMED", "INJECTED_TOO_LARGE", "StdioProcess", "open_bounded_stdio"]

logger = logging.getLogger("prism.mcp")

INJECTED_TOO_LARGE = -32090
INJECTED_MALFORMED = -32091
_CHUNK = 262_144
_SPACE = re.compile(rb"[ \t\r\n]*")  # matched in place: a line may be megabytes, never copied
_HEAD = 1_024
_TAIL = 256
_STDERR_TAIL = 4_096
_EXIT_TAIL_BYTES = 1_024
_EXIT_TAIL_LINES = 5
_MAX_SERVER_REQUESTS = 16
_KILL_WAIT_SECONDS = 2.0


class StdioProcess:
    """What a connection may know about its server process, and how it wants it closed."""

    def __init__(self, nonce: str, on_eof: Callable[[], None]) -> None:
        self.nonce = nonce
        self.pid: int | None = None
        self.returncode: int | None = None
        self.kill_now = False
        self._stderr = bytearray()
        self.on_eof = on_eof
        self.server_requests: set[RequestId] = set()

    def stderr_tail(self, limit: int = 1_024) -> str:
        """The last ``limit`` bytes the server wrote to stderr, decoded leniently."""
        return bytes(self._stderr[-limit:]).decode("utf-8", "replace").strip()

    def describe_exit(self) -> str:
        """One sentence on how the server ended: its exit code and the last lines of stderr."""
        code = self.returncode
        if code is None:
            text = "the server closed its stdout"
        elif code < 0:
            text = f"the server was killed by signal {-code}"
        else:
            text = f"the server exited with code {code}"
        lines = self.stderr_tail(_EXIT_TAIL_BYTES).splitlines()[-_EXIT_TAIL_LINES:]
        tail = " | ".join(line.strip() for line in lines if line.strip())
        return f"{text}; last lines of its stderr: {tail}" if tail else f"{text} (no stderr)"

    def keep_stderr(self, data: bytes) -> None:
        """Keep the last bytes only; whatever falls out of the tail is dropped unread."""
        self._stderr += data[-_STDERR_TAIL:]
        if len(self._stderr) > 2 * _STDERR_TAIL:
            del self._stderr[:-_STDERR_TAIL]


def _error(rid: RequestId, code: int, message: str, nonce: str) -> SessionMessage:
    data = {"prism_mcp": nonce}
    return SessionMessage(
        types.JSONRPCError(
            jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message, data=data)
        )
    )


class _LineReader:
    """Splits stdout into lines in linear time, capping each line while it is read."""

    def __init__(self, cap: int, proc: StdioProcess, send: Any) -> None:
        self.cap = cap
        self.proc = proc
        self.send = send
        self.buf = bytearray()
        self.skipping = False
        self.answered = False
        self.tail = b""

    async def emit(self, item: SessionMessage) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self.send.send(item)

    async def feed(self, chunk: bytes) -> None:
        start = 0
        while start <= len(chunk):
            nl = chunk.find(b"\n", start)
            end = len(chunk) if nl < 0 else nl
            if self.skipping:
                self.tail = (self.tail + chunk[max(start, end - _TAIL) : end])[-_TAIL:]
            elif len(self.buf) + (end - start) > self.cap:
                await self._overflow(chunk, start, end)
            else:
                self.buf += memoryview(chunk)[start:end]
            if nl < 0:
                return
            await self._end_line()
            start = nl + 1

    async def _overflow(self, chunk: bytes, start: int, end: int) -> None:
        head = bytes(self.buf[:_HEAD]) + chunk[start : start + max(0, _HEAD - len(self.buf))]
        self.tail = (bytes(self.buf[-_TAIL:]) + chunk[max(start, end - _TAIL) : end])[-_TAIL:]
        self.buf = bytearray()
        self.skipping = True
        rid = head_id(head)
        if rid is not None:
            self.answered = True
            await self._too_large(rid)

    async def _too_large(self, rid: RequestId) -> None:
        message = f"the server sent a message larger than {cap_note(self.cap)}"
        await self.emit(_error(rid, INJECTED_TOO_LARGE, message, self.proc.nonce))

    async def _end_line(self) -> None:
        if self.skipping:
            if not self.answered:
                rid = tail_id(self.tail)
                if rid is not None:  # else a junk line: dropped
                    await self._too_large(rid)
            self.skipping, self.answered, self.tail = False, False, b""
            return
        line, self.buf = self.buf, bytearray()
        if _SPACE.fullmatch(line) is None:
            await self._deliver(line)

    async def _deliver(self, line: bytearray) -> None:
        start = _SPACE.match(line).end()  # type: ignore[union-attr]  # always matches
        if line[start : start + 1] != b"{" or line.find(b'"jsonrpc"') < 0:
            return  # not a JSON-RPC object: junk, dropped cheaply
        problem = complexity_problem(line, self.cap)
        if problem is not None:
            rid = head_id(bytes(line[:_HEAD])) or tail_id(bytes(line[-_TAIL:]))
            if rid is not None:
                text = f"the server's message is too complex to parse safely: {problem}"
                await self.emit(_error(rid, INJECTED_TOO_LARGE, text, self.proc.nonce))
            return
        try:
            message = _parse(line)
        except ValueError as exc:
            rid = head_id(bytes(line[:_HEAD]))
            if rid is None:
                logger.debug("dropped a line that is not JSON-RPC: %.200s", exc)
                return
            text = f"the server sent a malformed message: {str(exc)[:500]}"
            await self.emit(_error(rid, INJECTED_MALFORMED, text, self.proc.nonce))
            return
        if isinstance(message, types.JSONRPCRequest):
            if len(self.proc.server_requests) >= _MAX_SERVER_REQUESTS:
                logger.debug("dropped server request %r: too many unanswered", message.method)
                return
            self.proc.server_requests.add(message.id)
        await self.emit(SessionMessage(message))


def _parse(line: bytes | bytearray) -> types.JSONRPCMessage:
    """Validate one message; a tools/list answer too deep for the SDK's parser loses only the
    over-deep schemas (the listing then skips those tools)."""
    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        shallow = shallow_tools(line)
        if shallow is None:
            raise
        return types.jsonrpc_message_adapter.validate_json(shallow, by_name=False)


async def _read_stdout(stream: anyio.abc.ByteReceiveStream, reader: _LineReader) -> None:
    async with reader.send:
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            while True:
                await reader.feed(await stream.receive(_CHUNK))
    reader.proc.on_eof()


async def _write_stdin(
    stream: anyio.abc.ByteSendStream,
    messages: Any,
    proc: StdioProcess,
    on_broken: Callable[[], Any],
) -> None:
    try:
        async with messages:
            async for item in messages:
                message = item.message
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    proc.server_requests.discard(message.id)
                # the model's own serializer, as the SDK's client does: half the cost of the
                # union TypeAdapter, which first works out which member the message is
                text = message.model_dump_json(by_alias=True, exclude_unset=True)
                await stream.send((text + "\n").encode())
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        await on_broken()


def _group_alive(pgid: int) -> bool:
    """Whether a live (non-zombie) process is still in process group ``pgid``."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == pgid:
            return True
    return False


async def _wait_group_gone(pgid: int, seconds: float) -> None:
    with anyio.move_on_after(seconds):
        while _group_alive(pgid):
            await anyio.sleep(0.01)


def _killpg(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def _wait_exit(process: anyio.abc.Process, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        await process.wait()
    return process.returncode is not None


async def _stop(process: anyio.abc.Process, proc: StdioProcess, grace: float) -> None:
    """Close stdin, give the server ``grace`` seconds, then SIGTERM and SIGKILL its group."""
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    exited = False if proc.kill_now else await _wait_exit(process, grace)
    if not exited and not proc.kill_now:
        _killpg(process.pid, signal.SIGTERM)
        exited = await _wait_exit(process, min(grace, 1.0))
    _killpg(process.pid, signal.SIGKILL)  # also the group's stragglers after a clean exit
    await _wait_exit(process, _KILL_WAIT_SECONDS)
    await _wait_group_gone(process.pid, _KILL_WAIT_SECONDS)
    proc.returncode = process.returncode


@contextlib.asynccontextmanager
async def open_bounded_stdio(
    config: StdioTransport,
    *,
    max_message_bytes: int,
    grace_seconds: float,
    proc: StdioProcess,
) -> AsyncIterator[tuple[Any, Any]]:
    """An MCP ``Transport`` (read and write streams) over a bounded stdio subprocess."""
    err_read, err_write = stderr_pipe()
    try:
        process = await anyio.open_process(
            [config.command, *config.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err_write,
            cwd=config.cwd,
            env=get_default_environment() | dict(config.env or {}),
            start_new_session=True,
        )
    except BaseException:
        os.close(err_read)
        raise
    finally:
        os.close(err_write)
    proc.pid = process.pid
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    reader = _LineReader(max_message_bytes, proc, read_send)
    try:
        async with anyio.create_task_group() as tg:
            assert process.stdout is not None
            assert process.stdin is not None
            tg.start_soon(_read_stdout, process.stdout, reader)
            tg.start_soon(drain_stderr, err_read, proc.keep_stderr)

            async def broken() -> None:
                await read_send.aclose()
                proc.on_eof()

            tg.start_soon(_write_stdin, process.stdin, write_recv, proc, broken)
            try:
                yield read_recv, write_send
            finally:
                with anyio.CancelScope(shield=True):
                    read_recv.close()
                    write_send.close()
                    await _stop(process, proc, grace_seconds)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                _killpg(process.pid, signal.SIGKILL)
                await _wait_exit(process, _KILL_WAIT_SECONDS)
            read_rest(err_read, proc.keep_stderr)
            os.close(err_read)
            with contextlib.suppress(Exception), anyio.move_on_after(_KILL_WAIT_SECONDS):
                await process.aclose()
