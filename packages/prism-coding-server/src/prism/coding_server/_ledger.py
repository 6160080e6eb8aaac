"""An audit ledger that appends one JSON line per record to a file only the user can read."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
from datetime import datetime
from typing import Any

from prism.core import ToolCallRecord

__all__ = ["JsonLinesLedger"]


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return repr(value)


class JsonLinesLedger:
    """Appends each (already redacted) record as one flushed JSON line; the file is mode 0600.

    A write failure is reported on stderr once and never raised: a ledger must not stop a call.
    """

    __slots__ = ("_failed", "_file", "_lock", "path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(self.path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.fchmod(descriptor, 0o600)
        self._file = os.fdopen(descriptor, "a", encoding="utf-8")
        self._lock = threading.Lock()
        self._failed = False

    def append(self, record: ToolCallRecord) -> None:
        """Write ``record`` as one JSON object on its own line and flush it."""
        try:
            line = json.dumps(dataclasses.asdict(record), default=_plain, ensure_ascii=False)
            with self._lock:
                self._file.write(line + "\n")
                self._file.flush()
        except (OSError, TypeError, ValueError) as error:
            if not self._failed:
                self._failed = True
                print(f"prism-coding-server: ledger {self.path}: {error}", file=sys.stderr)

    def close(self) -> None:
        """Close the file (later records are reported once on stderr, not raised)."""
        with self._lock:
            self._file.close()
