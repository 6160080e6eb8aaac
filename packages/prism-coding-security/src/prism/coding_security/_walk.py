"""One bounded directory walk, shared by the symlink check and the protected-path scan."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from prism.core import PrismError

__all__ = ["WalkLimitError", "bounded_entries"]


class WalkLimitError(PrismError, OSError):
    """More entries than the walk may look at: the answer is unknown (callers fail closed)."""


def bounded_entries(
    starts: Iterable[str],
    *,
    max_entries: int,
    descend: Callable[[os.DirEntry[str]], str | None],
) -> Iterator[os.DirEntry[str]]:
    """Every entry below ``starts``, each directory listed once; unreadable ones are skipped.

    ``descend(entry)`` names the directory to walk into next (``None``: not this one). Raises
    ``WalkLimitError`` instead of yielding entry number ``max_entries + 1``.
    """
    seen: set[str] = set()
    stack = list(starts)
    count = 0
    while stack:
        directory = stack.pop()
        if directory in seen:
            continue
        seen.add(directory)
        try:
            listing = list(os.scandir(directory))
        except OSError:
            continue
        for entry in listing:
            count += 1
            if count > max_entries:
                raise WalkLimitError(f"more than {max_entries} entries below {directory}")
            yield entry
            following = descend(entry)
            if following is not None:
                stack.append(following)
