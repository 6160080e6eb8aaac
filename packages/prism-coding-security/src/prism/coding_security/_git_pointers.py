"""Where git metadata points: ``gitdir:`` files, ``commondir``, config includes, hooks paths.

Git reads configuration (and so runs programs) from more places than the ``.git`` entry of a
work tree: a ``.git`` *file* names its git directory, a ``commondir`` file names the shared one,
``include.path``/``includeIf.*.path`` pull in more config files and ``core.hooksPath`` names
the hook directory. Every target is resolved here so the policy can protect it like ``.git``
itself. Reading is bounded (file size, pointer count, include depth) and never raises.
"""

from __future__ import annotations

import os
import re

__all__ = [
    "MAX_POINTERS",
    "git_dir_of",
    "git_metadata_reason",
    "looks_like_git_dir",
    "pointer_targets",
    "repository_pointers",
]

MAX_FILE_BYTES = 65_536
"""A pointer or config file is read up to this size (git's own are tiny)."""
MAX_POINTERS = 64
"""At most this many targets are collected per repository (more: the rest is ignored)."""
MAX_INCLUDE_DEPTH = 4

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES)
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", "replace")


def _join(base: str, target: str, home: str | None) -> str | None:
    target = target.strip()
    if not target or "\x00" in target:
        return None
    if target == "~" or target.startswith("~/"):
        if not home:
            return None
        target = home.rstrip("/") + target[1:]
    return os.path.normpath(os.path.join(base, target))


def _unquote(value: str) -> str:
    value = value.split(" #", 1)[0].split(" ;", 1)[0].strip() if '"' not in value else value
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        value = value[1:-1]
    return value.replace('\\"', '"').replace("\\\\", "\\")


def git_dir_of(entry: str) -> str | None:
    """The git directory a ``.git`` entry stands for (a ``gitdir:`` file is followed once)."""
    if os.path.isdir(entry):
        return os.path.realpath(entry)
    text = _read(entry)
    if text is None:
        return None
    first = text.splitlines()[0] if text.splitlines() else ""
    if not first.startswith("gitdir:"):
        return None
    target = _join(os.path.dirname(entry), first[len("gitdir:") :], None)
    return os.path.realpath(target) if target is not None else None


def _config_pointers(path: str, worktree: str | None, home: str | None, depth: int) -> list[str]:
    """Include targets and ``core.hooksPath`` named by the config file at ``path``."""
    text = _read(path)
    if text is None or depth > MAX_INCLUDE_DEPTH:
        return []
    found: list[str] = []
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            section = header.group(1).lower()
            line = header.group(3)
        entry = _ENTRY.match(line)
        if entry is None or entry.group(2) is None:
            continue
        key, value = entry.group(1).lower(), _unquote(entry.group(2))
        if section in ("include", "includeif") and key == "path":
            target = _join(os.path.dirname(path), value, home)
            if target is not None:
                found.append(target)
                found.extend(_config_pointers(target, worktree, home, depth + 1))
        elif section == "core" and key == "hookspath" and worktree is not None:
            target = _join(worktree, value, home)
            if target is not None:
                found.append(target)
        if len(found) >= MAX_POINTERS:
            break
    return found[:MAX_POINTERS]


def pointer_targets(entry: str, home: str | None = None) -> list[str]:
    """Every path the ``.git`` entry at ``entry`` makes git read code or config from.

    The git directory itself (when ``entry`` is a ``gitdir:`` file), its ``commondir``, the
    config includes of both and ``core.hooksPath``. Paths are absolute and normalised; a
    missing target is still reported (creating it later would redirect git).
    """
    targets: list[str] = []
    git_dir = git_dir_of(entry)
    if git_dir is None:
        return targets
    if not os.path.isdir(entry):
        targets.append(git_dir)
    dirs = [git_dir]
    common = _read(os.path.join(git_dir, "commondir"))
    if common is not None and common.strip():
        common_dir = _join(git_dir, common.splitlines()[0], None)
        if common_dir is not None:
            targets.append(common_dir)
            dirs.append(common_dir)
    worktree = os.path.dirname(entry)
    for directory in dirs:
        for name in ("config", "config.worktree"):
            targets.extend(_config_pointers(os.path.join(directory, name), worktree, home, 0))
    return list(dict.fromkeys(targets))[:MAX_POINTERS]


def repository_pointers(path: str, home: str | None = None) -> list[str]:
    """Pointer targets of every repository that contains ``path`` (each ancestor's ``.git``)."""
    found: list[str] = []
    directory = os.path.dirname(path.rstrip("/")) or "/"
    while True:
        entry = os.path.join(directory, ".git")
        if os.path.lexists(entry):
            found.extend(pointer_targets(entry, home))
        if directory == "/":
            break
        directory = os.path.dirname(directory)
    return found


def looks_like_git_dir(directory: str) -> bool:
    """A directory git would accept as a git directory: ``HEAD`` plus ``objects`` (a
    repository) or ``commondir`` (a linked worktree's private directory). ``HEAD`` may be a
    symlink, even a dangling one (git accepts ``HEAD -> refs/heads/main``)."""
    head = os.path.join(directory, "HEAD")
    return (os.path.islink(head) or os.path.isfile(head)) and (
        os.path.isdir(os.path.join(directory, "objects"))
        or os.path.isfile(os.path.join(directory, "commondir"))
    )


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def git_metadata_reason(
    resolved: str, roots: tuple[str, ...] | list[str], home: str | None = None
) -> str | None:
    """Why mutating ``resolved`` would change what git reads, or ``None``.

    ``resolved`` is protected when a ``.git`` entry of its repository or of a root's repository
    points at or above it, or when it lies inside an existing git directory of any name.
    """
    if home and _under(resolved, os.path.join(home, ".config", "git")):
        return "it is git's user configuration (~/.config/git)"
    origins = [resolved, *(os.path.join(root, ".git", "x") for root in roots)]
    for origin in origins:
        for target in repository_pointers(origin, home):
            real = os.path.realpath(target)
            if _under(resolved, real) or _under(resolved, target):
                return f"it is git metadata ({target} is named by a repository's .git)"
    directory = os.path.dirname(resolved.rstrip("/")) or "/"
    candidates = [resolved, directory]
    while directory != "/":
        directory = os.path.dirname(directory)
        candidates.append(directory)
    for candidate in candidates:
        if not any(_under(candidate, root) for root in roots):
            break
        if os.path.isdir(candidate) and looks_like_git_dir(candidate):
            return f"it is git metadata (inside the git directory {candidate})"
    return None
