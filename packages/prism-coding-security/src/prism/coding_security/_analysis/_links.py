"""Symlinks a link-following flag could reach (``ls -L``, ``grep -R``, ``find -L``, ``rg -L``).

Such a flag is allowed only when every symlink below its operands, and below every directory
those links lead to, resolves inside the roots. The walk is bounded: past ``MAX_LINK_WALK``
entries the answer is "cannot be checked" (approval), never "contained".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Literal

__all__ = ["MAX_LINK_WALK", "Follow", "escaping_link"]

MAX_LINK_WALK = 2_000
"""Directory entries looked at for one command before giving up (approval)."""

Follow = Literal["none", "shallow", "deep"]
"""``shallow``: links among the operands' direct entries (``ls -L dir``); ``deep``: every link
below them, recursively (``ls -RL``, ``grep -R``, ``find -L``, ``rg -L``)."""


def escaping_link(
    operands: Sequence[str],
    follow: Follow,
    outside: Callable[[str], str | None],
    max_entries: int = MAX_LINK_WALK,
) -> str | None:
    """Why following links below ``operands`` (absolute paths) may leave the roots, or None.

    ``outside(path)`` is the containment check (None when ``path`` resolves inside a root).
    """
    if follow == "none":
        return None
    seen: set[str] = set()
    stack = [(os.path.realpath(path), 0) for path in operands]
    entries = 0
    while stack:
        directory, depth = stack.pop()
        if directory in seen or not os.path.isdir(directory):
            continue
        seen.add(directory)
        try:
            listing = list(os.scandir(directory))
        except OSError:
            continue
        for entry in listing:
            entries += 1
            if entries > max_entries:
                return f"follows symlinks below more than {max_entries} entries (cannot check)"
            if entry.is_symlink():
                reason = outside(entry.path)
                if reason is not None:
                    return f"follows the symlink {entry.path} out of the workspace ({reason})"
                target = os.path.realpath(entry.path)
                if follow == "deep" and os.path.isdir(target):
                    stack.append((target, depth + 1))
            elif follow == "deep" and entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, depth + 1))
    return None
