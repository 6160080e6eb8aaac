"""Where protected symlinks point: the target of a protected path is protected too.

``.git/hooks/pre-commit -> ../../scripts/pre-commit.sh`` or ``.envrc -> tools/envrc.sh``: git
and direnv run the target, so writing the target plants code as surely as writing the link.
The sandbox binds these targets read-only and the policy refuses writes to them by either name;
both read this module, so they agree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ._git_pointers import looks_like_git_dir
from ._protected import ProtectedPaths
from ._walk import bounded_entries

__all__ = ["MAX_LINK_SCAN", "protected_symlinks", "symlink_target_reason"]

MAX_LINK_SCAN = 2_000
"""Entries looked at inside one protected directory when collecting its symlinks."""


def _links_inside(directory: str) -> list[str]:
    """Symlinks below a protected directory (a git directory: its ``hooks`` only; bounded)."""
    start = directory
    if looks_like_git_dir(directory):
        start = os.path.join(directory, "hooks")
    links: list[str] = []

    def descend(entry: os.DirEntry[str]) -> str | None:
        return entry.path if entry.is_dir(follow_symlinks=False) else None

    try:
        for entry in bounded_entries([start], max_entries=MAX_LINK_SCAN, descend=descend):
            if entry.is_symlink():
                links.append(entry.path)
    except OSError:
        pass  # past the bound: the links seen so far are still reported
    return links


def protected_symlinks(entries: Sequence[str]) -> list[tuple[str, str]]:
    """``(link, real target)`` for each protected entry that is a symlink and each symlink
    inside a protected directory."""
    pairs: list[tuple[str, str]] = []
    for entry in entries:
        if os.path.islink(entry):
            links = [entry]
        elif os.path.isdir(entry):
            links = _links_inside(entry)
        else:
            continue
        for link in links:
            try:
                pairs.append((link, os.path.realpath(link)))
            except (OSError, ValueError):
                continue
    return pairs


def symlink_target_reason(
    resolved: str, roots: Sequence[str], protected: ProtectedPaths
) -> str | None:
    """Why writing the canonical path ``resolved`` is refused because a protected symlink below
    a root points at it (or at a directory above it), else ``None``."""
    for root in roots:
        if root == "/":
            continue  # the whole host: no walk (the sandbox still binds targets read-only)
        try:
            entries = protected.existing_under(root, roots=roots)
        except OSError:
            continue  # past the scan bound; the named path is still judged by its own name
        for link, target in protected_symlinks(entries):
            if resolved == target or resolved.startswith(target.rstrip("/") + "/"):
                why = protected.reason(link, roots) or "it is git metadata"
                return f"it is what the protected symlink {link} points to ({why})"
    return None
