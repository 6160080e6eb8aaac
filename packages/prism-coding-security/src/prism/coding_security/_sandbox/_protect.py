"""Protected paths inside writable roots: bound read-only, and checked again after the command.

Existing entries (``.git``, ``.envrc``, ``.vscode``...) are bound read-only over the root's
writable bind, so the command cannot change them. A protected name that does not exist yet
cannot be mounted over without creating it on the host, so it is handled after the command
instead: every protected entry that appeared or was replaced while the command ran is removed
before anything on the host can run it. The list itself is ``ProtectedPaths``, shared with the
policy.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence

from .._git_pointers import looks_like_git_dir
from .._protected import GIT_CODE_PATHS, ProtectedPaths

__all__ = ["ProtectedSnapshot", "protected_args", "remove_new_entries", "snapshot"]

Identity = tuple[int, int, int, int, int, tuple[int, int] | None]
ProtectedSnapshot = dict[str, Identity]
"""Protected path -> (dev, inode, type, size, mtime_ns, symlink target (dev, inode))."""

_GIT_TOP = frozenset(p for p in GIT_CODE_PATHS if "/" not in p)


def _git_code_entries(git_dir: str) -> list[str]:
    """The parts of one ``.git`` directory that ``git="code"`` keeps read-only."""
    found = [git_dir]
    try:
        names = os.listdir(git_dir)
    except OSError:
        return found
    for name in names:
        if name.casefold() in _GIT_TOP or name.casefold().startswith("config"):
            found.append(os.path.join(git_dir, name))
    for nested in (p for p in GIT_CODE_PATHS if "/" in p):
        path = os.path.join(git_dir, nested)
        if os.path.lexists(path):
            found.append(path)
    return found


def _is_git_dir(path: str) -> bool:
    """A ``.git`` directory, or any directory git would take for a git directory."""
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    return os.path.basename(path).casefold() == ".git" or looks_like_git_dir(path)


def _entries(protected: ProtectedPaths, roots: Sequence[str], limit: int) -> list[str]:
    found: list[str] = []
    for root in roots:
        for path in protected.existing_under(root, max_entries=limit, roots=roots):
            if protected.git == "code" and _is_git_dir(path):
                found += _git_code_entries(path)
            else:
                found.append(path)
    return sorted(set(found))


def _identity(path: str) -> Identity | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    target: tuple[int, int] | None = None
    if stat.S_ISLNK(info.st_mode):
        try:
            followed = os.stat(path)
            target = (followed.st_dev, followed.st_ino)
        except OSError:
            target = None
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFDIR:  # contents are bound read-only or checked entry by entry
        return (info.st_dev, info.st_ino, kind, 0, 0, None)
    return (info.st_dev, info.st_ino, kind, info.st_size, info.st_mtime_ns, target)


def snapshot(protected: ProtectedPaths, roots: Sequence[str], limit: int) -> ProtectedSnapshot:
    """Each protected entry under ``roots`` with its identity; ``OSError`` past ``limit``."""
    result: ProtectedSnapshot = {}
    for path in _entries(protected, roots, limit):
        identity = _identity(path)
        if identity is not None:
            result[path] = identity
    return result


def protected_args(before: ProtectedSnapshot, git_mode: str) -> list[str]:
    """``--ro-bind`` every existing protected entry (after the roots' writable binds)."""
    args: list[str] = []
    for path, identity in before.items():
        if git_mode == "code" and stat.S_ISDIR(identity[2]) and _is_git_dir(path):
            continue  # the directory itself stays writable; its code parts are listed
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def remove_new_entries(
    protected: ProtectedPaths, roots: Sequence[str], before: ProtectedSnapshot, limit: int
) -> list[str]:
    """Remove protected entries that appeared or changed identity; return their paths.

    Raises ``OSError`` when one cannot be removed or the tree grew past ``limit`` (then the
    entries directly in each root are still checked first, fail closed).
    """
    try:
        after = snapshot(protected, roots, limit)
    except OSError:
        _remove_changed(_shallow(protected, roots), before)
        raise
    return _remove_changed(after, before)


def _shallow(protected: ProtectedPaths, roots: Sequence[str]) -> ProtectedSnapshot:
    """Protected entries directly in each root (and a root ``.git``'s code parts)."""
    result: ProtectedSnapshot = {}
    for root in roots:
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for name in names:
            path = os.path.join(root, name)
            git_dir = _is_git_dir(path)
            if not git_dir and protected.reason(path, [root]) is None:
                continue
            paths = [path]
            if git_dir and protected.git == "code":
                paths = _git_code_entries(path)
            for entry in paths:
                identity = _identity(entry)
                if identity is not None:
                    result[entry] = identity
    return result


def _remove_changed(after: ProtectedSnapshot, before: ProtectedSnapshot) -> list[str]:
    changed = [p for p, identity in after.items() if before.get(p) != identity]
    git_dirs = {p for p in changed if _is_git_dir(p)}
    removed: list[str] = []
    for path in changed:
        if any(path.startswith(d + "/") for d in git_dirs):
            continue
        _remove(path)
        removed.append(path)
    return removed
