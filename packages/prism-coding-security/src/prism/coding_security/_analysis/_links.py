"""Symlinks a link-following flag could reach (``ls -L``, ``grep -R``, ``find -L``, ``rg -L``).

Such a flag is allowed only when every symlink below its operands, and below every directory
those links lead to, resolves inside the roots. The walk is bounded: past ``MAX_LINK_WALK``
entries the answer is "cannot be checked" (approval), never "contained".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Literal

from .._walk import WalkLimitError, bounded_entries

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

    def descend(entry: os.DirEntry[str]) -> str | None:
        if follow != "deep":
            return None
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            return target if os.path.isdir(target) else None
        return entry.path if entry.is_dir(follow_symlinks=False) else None

    starts = [os.path.realpath(path) for path in operands]
    try:
        for entry in bounded_entries(starts, max_entries=max_entries, descend=descend):
            if entry.is_symlink():
                reason = outside(entry.path)
                if reason is not None:
                    return f"follows the symlink {entry.path} out of the workspace ({reason})"
    except WalkLimitError:
        return f"follows symlinks below more than {max_entries} entries (cannot check)"
    return None
