"""The full-output file: a private temp file written by a helper thread with bounded backlog,
so disk writes overlap with reading the pipe instead of stalling it."""

from __future__ import annotations

import collections
import contextlib
import os
import tempfile
import threading

__all__ = ["SpillFile"]

_MAX_BACKLOG_BYTES = 4 * 1024 * 1024


class SpillFile:
    """``mkstemp`` (mode 0600) plus a writer thread. ``write`` blocks only when the backlog
    passes 4 MiB (back-pressure keeps memory bounded); ``close`` flushes and joins."""

    def __init__(self) -> None:
        self._fd, self.path = tempfile.mkstemp(prefix="prism-shell-", suffix=".log")
        self._queue: collections.deque[bytes] = collections.deque()
        self._backlog = 0
        self._closing = False
        self._ready = threading.Condition()
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="prism-shell-spill", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Queue ``data``; a failed file just stops growing (``error`` says why)."""
        with self._ready:
            while self._backlog >= _MAX_BACKLOG_BYTES and self.error is None:
                self._ready.wait()
            if self.error is not None or self._closing:
                return
            self._queue.append(data)
            self._backlog += len(data)
            self._ready.notify_all()

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closing:
                    self._ready.wait()
                if not self._queue:
                    return
                data = self._queue.popleft()
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError as exc:  # e.g. disk full: keep the tail, report an incomplete file
                with self._ready:
                    self.error = f"the full-output file is incomplete: {exc}"
                    self._queue.clear()
                    self._backlog = 0
                    self._ready.notify_all()
                return
            with self._ready:
                self._backlog -= len(data)
                self._ready.notify_all()

    def close(self) -> None:
        """Write what is queued, stop the thread, close the file (it stays on disk)."""
        with self._ready:
            self._closing = True
            self._ready.notify_all()
        self._thread.join()
        with contextlib.suppress(OSError):
            os.close(self._fd)
