"""Atomic file replacement through a directory fd: temp file beside the target, fsync, rename."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable

from ._common import ToolError
from ._fs import fs_error, lstat_in, open_directory, split_target

__all__ = ["atomic_write", "current_umask", "replace_in"]


def current_umask() -> int:
    """The process umask, read without the racy set-and-restore dance when possible."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def atomic_write(
    target: str, data: bytes, should_stop: Callable[[], bool], *, shown: str, verb: str = "write"
) -> bool:
    """Replace ``target`` (the checked, symlink-free path) with ``data``, creating missing
    parent directories; return whether the file was created. See ``replace_in``."""
    parent, name = split_target(target, shown)
    try:
        dir_fd = open_directory(parent, create=True)
    except OSError as exc:
        raise fs_error(exc, verb, shown) from None
    try:
        return replace_in(dir_fd, name, target, data, should_stop, shown=shown, verb=verb)
    finally:
        os.close(dir_fd)


def replace_in(
    dir_fd: int,
    name: str,
    target: str,
    data: bytes,
    should_stop: Callable[[], bool],
    *,
    shown: str,
    verb: str,
) -> bool:
    """Replace ``name`` in the directory ``dir_fd`` atomically: a temp file created in that very
    directory, ``fsync``, rename within it. Readers see the old or the new content, never a mix;
    an existing file keeps its mode and (when permitted) owner; no temp file survives a failure
    or an abort."""
    try:
        existing = lstat_in(dir_fd, name, target)
    except OSError as exc:
        raise fs_error(exc, verb, shown) from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        kind = "a directory" if stat.S_ISDIR(existing.st_mode) else "not a regular file"
        raise ToolError("not_a_file", f"Cannot {verb} {shown}: it is {kind}")
    if should_stop():
        raise ToolError("aborted", f"Aborted before writing {shown}; nothing was changed")
    try:
        fd, temp = _create_temp(dir_fd, name)
    except OSError as exc:
        raise fs_error(exc, verb, shown) from None
    try:
        try:
            _fill(fd, data, existing)
        finally:
            os.close(fd)
        if should_stop():
            raise ToolError("aborted", f"Aborted before replacing {shown}; nothing was changed")
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise fs_error(exc, verb, shown) from None
        raise
    _sync_directory(dir_fd)
    return existing is None


def _create_temp(dir_fd: int, name: str) -> tuple[int, str]:
    """A new private file next to ``name`` (never following a symlink)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        temp = f".{name[:200]}.{secrets.token_hex(6)}"
        try:
            return os.open(temp, flags, 0o600, dir_fd=dir_fd), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", name)


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


def _sync_directory(dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
