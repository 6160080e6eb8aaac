"""An audit ledger that appends one JSON line per record to a file only the user can read."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from prism.core import ToolCallRecord

__all__ = ["JsonLinesLedger"]


_MAX_DEPTH = 64


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data: dataclasses and mappings become objects (depth-bounded)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if depth >= _MAX_DEPTH:
        return "[too deep]"
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: _plain(getattr(value, field.name), depth + 1)
            for field in dataclasses.fields(value)
        }
    if isinstance(value, Mapping):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(item, depth + 1) for item in value]
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
            line = json.dumps(_plain(record), ensure_ascii=False)
            with self._lock:
                self._file.write(line + "\n")
                self._file.flush()
        except (OSError, TypeError, ValueError, RecursionError) as error:
            if not self._failed:
                self._failed = True
                print(f"prism-coding-server: ledger {self.path}: {error}", file=sys.stderr)

    def close(self) -> None:
        """Close the file (later records are reported once on stderr, not raised)."""
        with self._lock:
            self._file.close()
