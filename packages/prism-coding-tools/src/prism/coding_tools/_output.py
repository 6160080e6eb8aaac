"""Bounded capture of command output: a rolling tail, a spill file, a hard total limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._spill import SpillFile

__all__ = ["OutputCollector", "Tail"]

_CONTINUATION_MASK = 0xC0
_CONTINUATION = 0x80


@dataclass(frozen=True, slots=True)
class Tail:
    """What the model sees of the output, and how much there was."""

    text: str
    shown_lines: int
    shown_bytes: int
    total_lines: int | None  # None once the output outgrew the tail (lines are not counted)
    total_bytes: int
    truncated: bool
    spill_path: str | None
    limit_reached: bool


def _decode_tail(data: bytes) -> str:
    """Decode a byte tail that may start inside a multi-byte UTF-8 character."""
    start = 0
    while start < min(len(data), 3) and data[start] & _CONTINUATION_MASK == _CONTINUATION:
        start += 1
    return data[start:].decode("utf-8", errors="replace")


class OutputCollector:
    """Feeds on raw chunks; keeps O(max_bytes) in memory whatever the output size.

    Until the output outgrows the tail bounds everything is kept in memory (and lines are
    counted); from then on the full raw output also goes to a private (0600) temp file and only
    bytes are counted. Past ``max_total_bytes`` the collector stops accepting data and calls
    ``on_limit`` once.
    """

    def __init__(
        self,
        *,
        max_lines: int,
        max_bytes: int,
        max_total_bytes: int,
        on_limit: Callable[[], None],
    ) -> None:
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._max_total = max_total_bytes
        self._on_limit = on_limit
        self._buffer = bytearray()
        self._total = 0
        self._newlines = 0
        self._last_byte = b""
        self._spill_file: SpillFile | None = None
        self._spilling = False
        self.spill_path: str | None = None
        self.spill_error: str | None = None
        self.limit_reached = False

    def feed(self, chunk: bytes) -> None:
        """Accept one chunk (the ``on_data`` callback)."""
        if self.limit_reached or not chunk:
            return
        room = self._max_total - self._total
        if len(chunk) > room:
            chunk = chunk[:room]
            self.limit_reached = True
        if chunk:
            self._accept(chunk)
        if self.limit_reached:
            self._on_limit()

    def _accept(self, chunk: bytes) -> None:
        self._total += len(chunk)
        if self._spilling:
            self._spill(chunk)  # lines are no longer counted: the tail is already cut
        else:
            self._newlines += chunk.count(b"\n")
            self._last_byte = chunk[-1:]
            if self._total > self._max_bytes or self._total_lines() > self._max_lines:
                self._spilling = True
                self._start_spill(chunk)
        if len(chunk) >= self._max_bytes:
            self._buffer = bytearray(chunk[-self._max_bytes :])
            return
        self._buffer += chunk
        if len(self._buffer) > 2 * self._max_bytes:
            del self._buffer[: len(self._buffer) - self._max_bytes]

    def _total_lines(self) -> int:
        partial = 1 if self._total and self._last_byte != b"\n" else 0
        return self._newlines + partial

    def _start_spill(self, chunk: bytes) -> None:
        try:
            self._spill_file = SpillFile()
        except OSError as exc:
            self.spill_error = f"could not create the full-output file: {exc}"
            return
        self.spill_path = self._spill_file.path
        self._spill(bytes(self._buffer))  # everything so far is still in memory
        self._spill(chunk)

    def _spill(self, data: bytes) -> None:
        if self._spill_file is not None:
            self._spill_file.write(data)

    def close(self) -> None:
        """Flush and close the spill file (it stays on disk for the model to read)."""
        if self._spill_file is not None:
            self._spill_file.close()
            self.spill_error = self.spill_error or self._spill_file.error
            self._spill_file = None

    def tail(self) -> Tail:
        """The last ``max_lines`` lines within ``max_bytes``, UTF-8 safe."""
        window = bytes(self._buffer[-self._max_bytes :])
        truncated = self._spilling
        before = len(self._buffer) - len(window) - 1
        starts_line = before >= 0 and self._buffer[before] == ord("\n")
        if self._total > len(window) and not starts_line and b"\n" in window[:-1]:
            window = window[window.index(b"\n") + 1 :]  # drop the partial first line
        lines = window.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
            ends_newline = True
        else:
            ends_newline = False
        if len(lines) > self._max_lines:
            lines = lines[-self._max_lines :]
            truncated = True
        shown = b"\n".join(lines) + (b"\n" if ends_newline and lines else b"")
        return Tail(
            text=_decode_tail(shown),
            shown_lines=len(lines),
            shown_bytes=len(shown),
            total_lines=None if truncated else self._total_lines(),
            total_bytes=self._total,
            truncated=truncated,
            spill_path=self.spill_path,
            limit_reached=self.limit_reached,
        )
