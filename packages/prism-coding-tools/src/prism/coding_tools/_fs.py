"""Race-free file access: reach the checked path through directory fds, never through a symlink.

The path a policy approved is absolute and symlink-free. Every access walks it from ``/`` one
component at a time with ``O_NOFOLLOW | O_DIRECTORY`` and then opens, creates or renames the
last component relative to the parent's fd. A directory swapped for a symlink after the check
makes the walk fail; it can never redirect the access outside the approved path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from prism.core import PrismError

from ._common import ToolError

__all__ = [
    "PathChangedError",
    "fs_error",
    "lstat_in",
    "open_directory",
    "open_regular",
    "split_target",
]

_DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
"""``O_PATH`` (Linux) needs no read permission, like path lookup itself."""
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class PathChangedError(PrismError, OSError):
    """A component of the checked path is now a symbolic link (it changed after the check)."""

    def __init__(self, component: str) -> None:
        super().__init__(errno.ELOOP, "it is now a symbolic link", component)
        self.component = component


def split_target(path: str, shown: str) -> tuple[str, str]:
    """``(parent, name)`` of an absolute, normalized path; the root directory is not a file."""
    parent, name = os.path.split(path)
    if not os.path.isabs(path) or not name or name in (".", ".."):
        raise ToolError("not_a_file", f"{shown} is a directory, not a file")
    return parent, name


def open_directory(path: str, *, create: bool) -> int:
    """An fd for the absolute ``path``, reached from ``/`` without following any symlink;
    missing directories are created (mode ``0o777 & ~umask``) when ``create`` is true."""
    fd = os.open("/", _DIR_FLAGS)
    walked = ""
    for part in path.split("/"):
        if not part:
            continue
        if part in (".", ".."):
            os.close(fd)
            raise OSError(errno.EINVAL, "path is not normalized", path)
        walked += "/" + part
        fd = _step(fd, part, walked, create)
    return fd


def _step(parent: int, part: str, walked: str, create: bool) -> int:
    """Open ``part`` below ``parent`` (closing ``parent`` in every case)."""
    try:
        try:
            return os.open(part, _DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o777, dir_fd=parent)
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(parent, part):
            raise PathChangedError(walked) from None
        exc.filename = walked
        raise
    finally:
        os.close(parent)


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def lstat_in(dir_fd: int, name: str, path: str) -> os.stat_result | None:
    """``lstat`` of ``name`` in ``dir_fd`` (``None`` if missing); a symlink is refused."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise PathChangedError(path)
    return info


def open_regular(dir_fd: int, name: str, path: str, info: os.stat_result) -> int:
    """Open the regular file ``name`` for reading without following a symlink or blocking on
    a FIFO; it must still be the file ``info`` describes."""
    fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    now = os.fstat(fd)
    if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        raise PathChangedError(path)
    return fd


def fs_error(exc: OSError, verb: str, shown: str) -> ToolError:
    """The ``io_error`` result for a failed access, naming what changed when it was a swap."""
    if isinstance(exc, PathChangedError):
        return ToolError(
            "io_error",
            f"Cannot {verb} {shown}: {exc.component} is now a symbolic link (the path changed "
            "after it was checked); nothing was accessed through it",
        )
    return ToolError("io_error", f"Cannot {verb} {shown}: {exc.strerror or exc}")
