"""Atomic file replacement: temp file in the same directory, fsync, ``os.replace``."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable

from ._common import ToolError

__all__ = ["atomic_write", "current_umask"]


def current_umask() -> int:
    """The process umask, read without the racy set-and-restore dance when possible."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def atomic_write(target: str, data: bytes, should_stop: Callable[[], bool], *, shown: str) -> bool:
    """Replace ``target`` (a resolved, symlink-free path) with ``data``; return whether it was
    created. Readers see the old or the new content, never a mix; an existing file keeps its
    mode and (when permitted) owner; no temp file survives a failure or an abort."""
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise ToolError("io_error", f"Cannot write {shown}: {exc.strerror or exc}") from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        kind = "a directory" if stat.S_ISDIR(existing.st_mode) else "not a regular file"
        raise ToolError("not_a_file", f"Cannot write {shown}: it is {kind}")
    if should_stop():
        raise ToolError("aborted", f"Aborted before writing {shown}; nothing was changed")
    directory = os.path.dirname(target)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.")
    except OSError as exc:
        raise ToolError("io_error", f"Cannot write {shown}: {exc.strerror or exc}") from None
    try:
        try:
            _fill(fd, data, existing)
        finally:
            os.close(fd)
        if should_stop():
            raise ToolError("aborted", f"Aborted before replacing {shown}; nothing was changed")
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise ToolError("io_error", f"Cannot write {shown}: {exc.strerror or exc}") from None
        raise
    _sync_directory(directory)
    return existing is None


def _fill(fd: int, data: bytes, existing: os.stat_result | None) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    if existing is not None:
        with contextlib.suppress(OSError):  # only root may give a file away
            os.fchown(fd, existing.st_uid, existing.st_gid)
        mode = stat.S_IMODE(existing.st_mode)
    else:
        mode = 0o666 & ~current_umask()
    os.fchmod(fd, mode)
    os.fsync(fd)


def _sync_directory(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
