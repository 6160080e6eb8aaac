"""What the sandbox can read: the host view (whole root or system directories) and secret masks."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from typing import Literal

from .._credentials import DEFAULT_DENY_READ, expand_location, host_homes, xdg_config_home

__all__ = ["DEFAULT_DENY_READ", "SYSTEM_READ_PATHS", "ReadMode", "deny_read_args", "view_args"]

ReadMode = Literal["deny", "allow"]
"""``"deny"``: the host root is visible read-only except the ``deny_read`` paths.
``"allow"``: only system directories, ``allow_read`` paths and the roots are visible."""

SYSTEM_READ_PATHS: tuple[str, ...] = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
)
"""Visible in ``"allow"`` read mode (plus ``/dev``, a fresh ``/proc``, a private ``/tmp``)."""


def _expand(pattern: str) -> list[str]:
    bases = expand_location(pattern, host_homes(), xdg_config_home())
    found: list[str] = []
    for base in bases:
        found += glob.glob(base) if glob.has_magic(base) else [base]
    return found


def deny_read_args(patterns: Iterable[str]) -> list[str]:
    """Mask each existing match: an empty read-only tmpfs on directories, ``/dev/null`` on files.

    The mask goes on the resolved path, so every symlink leading there shows the mask too.
    """
    args: list[str] = []
    seen: set[str] = set()
    for pattern in patterns:
        for path in _expand(pattern):
            real = os.path.realpath(path)
            if real in seen or not os.path.lexists(real) or real == "/":
                continue
            seen.add(real)
            if os.path.isdir(real):
                args += ["--perms", "0000", "--tmpfs", real, "--remount-ro", real]
            else:
                args += ["--ro-bind", "/dev/null", real]
    return args


def view_args(mode: ReadMode, allow_read: Sequence[str]) -> list[str]:
    """The read-only host view, before the roots are bound writable over it."""
    if mode == "deny":
        return ["--ro-bind", "/", "/"]
    args: list[str] = []
    for path in (*SYSTEM_READ_PATHS, *allow_read):
        if os.path.islink(path) and os.path.dirname(path) == "/":
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args
