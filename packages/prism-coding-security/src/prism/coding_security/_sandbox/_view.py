"""What the sandbox can read: the host view (whole root or system directories) and secret masks."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from typing import Literal

from .._credentials import DEFAULT_DENY_READ, expand_location, host_homes, xdg_config_home

__all__ = [
    "DEFAULT_DENY_READ",
    "SYSTEM_READ_PATHS",
    "ReadMode",
    "anchor_args",
    "deny_read_args",
    "view_args",
]

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


def masked_paths(patterns: Iterable[str]) -> list[str]:
    """The real path of each existing match of ``patterns`` (without repeats, never ``/``)."""
    found: list[str] = []
    for pattern in patterns:
        for path in _expand(pattern):
            real = os.path.realpath(path)
            if real not in found and os.path.lexists(real) and real != "/":
                found.append(real)
    return found


def deny_read_args(patterns: Iterable[str]) -> list[str]:
    """Mask each existing match: an empty read-only tmpfs on directories, ``/dev/null`` on files.

    The mask goes on the resolved path, so every symlink leading there shows the mask too.
    """
    args: list[str] = []
    for real in masked_paths(patterns):
        if os.path.isdir(real):
            args += ["--perms", "0000", "--tmpfs", real, "--remount-ro", real]
        else:
            args += ["--ro-bind", "/dev/null", real]
    return args


def anchor_args(patterns: Iterable[str], roots: Sequence[str]) -> list[str]:
    """Bind every directory between a writable root and a mask onto itself (still writable).

    A mount point cannot be renamed or removed (``EBUSY``), so ``mv ~/.config ~/.cfg`` fails
    instead of carrying the mask away and leaving ``~/.cfg/gh/hosts.yml`` readable later.
    """
    anchors: set[str] = set()
    for real in masked_paths(patterns):
        for root in roots:
            prefix = root.rstrip("/") + "/"
            if not real.startswith(prefix) or root == "/":
                continue
            parent = os.path.dirname(real)
            while parent.startswith(prefix):
                anchors.add(parent)
                parent = os.path.dirname(parent)
    args: list[str] = []
    for anchor in sorted(anchors, key=lambda p: (p.count("/"), p)):
        args += ["--bind", anchor, anchor]
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
