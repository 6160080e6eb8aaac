"""Finding and killing what a command started: its process group plus any process that
left the group but still holds the command's output pipe (found through ``/proc``)."""

from __future__ import annotations

import contextlib
import os
import signal

__all__ = ["group_exists", "signal_tree", "tree_pids"]

_PROC = "/proc"


def _stat_fields(pid: str) -> tuple[str, int] | None:
    """``(state, pgrp)`` of a process, or ``None`` if it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name may contain spaces and parentheses: split after the last ')'.
    rest = raw[raw.rfind(b")") + 2 :].split()
    if len(rest) < 3:
        return None
    return rest[0].decode("ascii", "replace"), int(rest[2])


def _holds_pipe(pid: str, link: str) -> bool:
    fd_dir = f"{_PROC}/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"{fd_dir}/{fd}") == link:
                return True
        except OSError:
            continue
    return False


def tree_pids(pgid: int | None, pipe_inode: int | None) -> set[int]:
    """Live (non-zombie) processes in group ``pgid`` or holding pipe ``pipe_inode``.

    Our own process (which holds the read end) is never included.
    """
    me = os.getpid()
    link = f"pipe:[{pipe_inode}]" if pipe_inode is not None else None
    found: set[int] = set()
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        fields = _stat_fields(entry)
        if fields is None or fields[0] in ("Z", "X"):
            continue
        in_group = pgid is not None and fields[1] == pgid
        if in_group or (link is not None and _holds_pipe(entry, link)):
            found.add(int(entry))
    return found


def signal_tree(pgid: int | None, pipe_inode: int | None, sig: signal.Signals) -> set[int]:
    """Send ``sig`` to the group (if given) and to every pipe holder; return the pids hit."""
    if pgid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
    pids = tree_pids(pgid, pipe_inode)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return pids


def group_exists(pgid: int) -> bool:
    """Cheap pre-check: does any process (zombies included) remain in group ``pgid``?"""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
