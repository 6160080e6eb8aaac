"""Streamed text paging: skip to a line, collect one bounded page, never hold the whole file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ._common import ToolError

__all__ = ["CHUNK", "Page", "Readable", "read_page", "read_up_to"]

CHUNK = 65_536


@dataclass(frozen=True, slots=True)
class Page:
    """One page of lines (``text`` without its final newline) and how to continue."""

    text: str
    first_line: int
    line_count: int
    next_offset: int | None
    stopped_by: str | None  # "lines" | "bytes" | None (reached the end)
    long_line_bytes: int | None = None  # set when the only line shown was cut


class Readable(Protocol):
    """A raw binary file (``open(path, "rb", buffering=0)``)."""

    def read(self, size: int = -1, /) -> bytes | None: ...


class _Chunks:
    """Sequential reads of a file, starting with bytes already read."""

    def __init__(self, f: Readable, first: bytes, should_stop: Callable[[], bool]) -> None:
        self._f = f
        self._pending: bytes | None = first
        self._stop = should_stop

    def next(self) -> bytes:
        if self._pending is not None:
            chunk, self._pending = self._pending, None
            if chunk:
                return chunk
        if self._stop():
            raise ToolError("aborted", "Aborted while reading; nothing was returned")
        return self._f.read(CHUNK) or b""


def _skip_lines(chunks: _Chunks, count: int) -> tuple[bytes, int, bytes]:
    """Consume ``count`` newlines. Returns (rest of the current chunk, newlines seen, last byte)."""
    seen, last = 0, b""
    while seen < count:
        chunk = chunks.next()
        if not chunk:
            return b"", seen, last
        found = chunk.count(b"\n")
        if seen + found < count:
            seen += found
            last = chunk[-1:]
            continue
        index = -1
        for _ in range(count - seen):
            index = chunk.index(b"\n", index + 1)
        return chunk[index + 1 :], count, b"\n"
    return b"", seen, last


def read_page(
    f: Readable,
    first: bytes,
    *,
    offset: int,
    limit: int,
    max_bytes: int,
    should_stop: Callable[[], bool],
) -> Page:
    """Page ``limit`` lines from 1-based ``offset`` within ``max_bytes`` (``first``: bytes read)."""
    chunks = _Chunks(f, first, should_stop)
    buf, seen, last = _skip_lines(chunks, offset - 1)
    if not buf:
        buf = chunks.next()
    if not buf:
        if offset == 1:
            return Page(text="", first_line=1, line_count=0, next_offset=None, stopped_by=None)
        total = seen + (1 if last not in (b"", b"\n") else 0)
        raise ToolError(
            "offset_past_end",
            f"offset={offset} is past the end of the file, which has {total} line"
            f"{'' if total == 1 else 's'}; use an offset from 1 to {max(total, 1)}",
        )
    return _collect(chunks, buf, offset=offset, limit=limit, max_bytes=max_bytes)


def _collect(chunks: _Chunks, buf: bytes, *, offset: int, limit: int, max_bytes: int) -> Page:
    lines: list[bytes] = []
    used, start = 0, 0
    stopped_by: str | None = None
    while True:
        if len(lines) >= limit:
            stopped_by = "lines"
            break
        newline = buf.find(b"\n", start)
        if newline == -1:
            if len(buf) - start > max_bytes - used:
                if not lines:
                    return _long_line(chunks, buf[start:], offset=offset, max_bytes=max_bytes)
                stopped_by = "bytes"
                break
            chunk = chunks.next()
            if not chunk:
                if start < len(buf):
                    lines.append(buf[start:])
                    start = len(buf)
                break
            buf, start = buf[start:] + chunk, 0
            continue
        line = buf[start : newline + 1]
        if used + len(line) > max_bytes:
            if not lines:
                return _long_line(chunks, buf[start:], offset=offset, max_bytes=max_bytes)
            stopped_by = "bytes"
            break
        lines.append(line)
        used += len(line)
        start = newline + 1
    more = start < len(buf) or (stopped_by is not None and bool(chunks.next()))
    text = b"".join(lines).decode("utf-8", errors="replace")
    return Page(
        text=text.removesuffix("\n").removesuffix("\r"),
        first_line=offset,
        line_count=len(lines),
        next_offset=offset + len(lines) if more else None,
        stopped_by=stopped_by if more else None,
    )


def _long_line(chunks: _Chunks, head: bytes, *, offset: int, max_bytes: int) -> Page:
    """The first line of the page is longer than the page: show its start, measure the rest."""
    shown = head[:max_bytes]
    cut = len(shown)
    while cut > 0 and cut < len(head) and head[cut] & 0xC0 == 0x80:
        cut -= 1  # do not split a UTF-8 character
    shown = shown[:cut]
    size, rest = 0, head
    while True:
        newline = rest.find(b"\n")
        if newline != -1:
            size += newline
            more = newline + 1 < len(rest) or bool(chunks.next())
            break
        size += len(rest)
        rest = chunks.next()
        if not rest:
            more = False
            break
    return Page(
        text=shown.decode("utf-8", errors="replace"),
        first_line=offset,
        line_count=1,
        next_offset=offset + 1 if more else None,
        stopped_by="bytes" if more else None,
        long_line_bytes=size,
    )


def read_up_to(f: Readable, size: int) -> bytes:
    """Read until ``size`` bytes or end of file (a raw read may return less than asked)."""
    parts, got = [], 0
    while got < size:
        chunk = f.read(size - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)
