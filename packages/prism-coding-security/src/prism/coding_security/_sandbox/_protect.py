"""Protected paths inside writable roots: bound read-only, and checked again after the command.

Existing entries (``.git``, ``.envrc``, ``.vscode``...) are bound read-only over the root's
writable bind, so the command cannot change them. A protected name that does not exist yet
cannot be mounted over without creating it on the host, so it is handled after the command
instead: every protected entry that appeared or was replaced while the command ran is removed
before anything on the host can run it. The list itself is ``ProtectedPaths``, shared with the
policy.
"""

from __future__ import annotations

import glob
import os
import shutil
import stat
from collections.abc import Sequence

from .._git_pointers import looks_like_git_dir
from .._protected import GIT_CODE_PATHS, ProtectedPaths
from .._symlinked import protected_symlinks

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
    """Each protected entry under ``roots`` with its identity; ``OSError`` past ``limit``.

    Symlinks inside protected directories (a hook kept in the tree) are entries too: their
    identity holds their target's, so a dangling hook whose target the command created counts
    as changed (and the link is removed)."""
    result: ProtectedSnapshot = {}
    entries = _entries(protected, roots, limit)
    for path in [*entries, *(link for link, _ in protected_symlinks(entries))]:
        identity = _identity(path)
        if identity is not None:
            result[path] = identity
    return result


def protected_args(
    before: ProtectedSnapshot, git_mode: str, roots: Sequence[str] = ()
) -> list[str]:
    """``--ro-bind`` every existing protected entry (after the roots' writable binds), and the
    target inside a root of every symlink in or at a protected entry (a hook kept in the tree)."""
    args: list[str] = []
    for path, identity in before.items():
        if git_mode == "code" and stat.S_ISDIR(identity[2]) and _is_git_dir(path):
            continue  # the directory itself stays writable; its code parts are listed
        if stat.S_ISLNK(identity[2]) and _inside(path, before):
            continue  # a link inside a bound directory: its target is bound below
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    prefixes = tuple(root.rstrip("/") + "/" for root in roots)
    for _, target in protected_symlinks(list(before)):
        if target.startswith(prefixes) and os.path.exists(target):
            args += ["--ro-bind", target, target]
    return args


def _inside(path: str, before: ProtectedSnapshot) -> bool:
    parent = os.path.dirname(path)
    while parent not in ("/", ""):
        if parent in before:
            return True
        parent = os.path.dirname(parent)
    return False


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def remove_new_entries(
    protected: ProtectedPaths, roots: Sequence[str], before: ProtectedSnapshot, limit: int
) -> list[str]:
    """Remove protected entries that appeared or changed identity; return their paths.

    Raises ``OSError`` when one cannot be removed or the tree grew past ``limit``. A flood
    still gets cleaned: a walk ``CLEANUP_FACTOR`` times longer, and if even that overflows the
    entries directly in each root and in every known environment's site-packages (fail closed,
    the command is reported untrusted either way).
    """
    try:
        after = snapshot(protected, roots, limit)
    except OSError:
        try:
            after = snapshot(protected, roots, limit * CLEANUP_FACTOR)
        except OSError:
            after = {**_shallow(protected, roots), **_site_packages(protected, roots, before)}
        _remove_changed(after, before)
        raise
    return _remove_changed(after, before)


CLEANUP_FACTOR = 20
"""After an overflow, the clean-up walk may look at this many times ``limit`` entries."""


def _children(directory: str) -> list[str]:
    """The paths directly in ``directory``; none when it cannot be listed."""
    try:
        return [os.path.join(directory, name) for name in os.listdir(directory)]
    except OSError:
        return []


def _site_packages(
    protected: ProtectedPaths, roots: Sequence[str], before: ProtectedSnapshot
) -> ProtectedSnapshot:
    """Protected entries in the site-packages of every environment seen before the command
    (its ``pyvenv.cfg`` is on the list), looked up directly whatever the tree's size."""
    result: ProtectedSnapshot = {}
    for config in (p for p in before if os.path.basename(p).casefold() == "pyvenv.cfg"):
        venv = os.path.dirname(config)
        patterns = ("lib*/python*/site-packages", "Lib/site-packages")
        for site in (d for pattern in patterns for d in glob.glob(os.path.join(venv, pattern))):
            for path in _children(site):
                identity = _identity(path)
                if identity is not None and protected.reason(path, roots) is not None:
                    result[path] = identity
    return result


def _shallow(protected: ProtectedPaths, roots: Sequence[str]) -> ProtectedSnapshot:
    """Protected entries directly in each root (and a root ``.git``'s code parts)."""
    result: ProtectedSnapshot = {}
    for root in roots:
        for path in _children(root):
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
    """Remove what is new or replaced; keep what only moved (``mv proj proj2`` carries its
    ``.git``): an entry whose identity existed before and is gone from its old path. Every
    existing entry was bound read-only, so it could be moved with its parent but neither
    changed nor deleted (no inode reuse): history is never destroyed for a rename."""
    kept = {identity for p, identity in after.items() if before.get(p) == identity}
    moved = {
        p
        for p, identity in after.items()
        if before.get(p) != identity and identity in set(before.values()) - kept
    }
    changed = [p for p, identity in after.items() if before.get(p) != identity and p not in moved]
    removed: list[str] = []
    for path in sorted(changed):
        if any(path.startswith(d + "/") for d in removed):
            continue  # went with a removed directory (a new git directory, a new .husky)
        _remove(path)
        removed.append(path)
    return removed
