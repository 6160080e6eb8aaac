"""Name sets with ``fnmatch`` globs, compiled once."""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["GlobSet"]

_GLOB_CHARS = frozenset("*?[")


class GlobSet:
    """Exact names in a set, globs in one compiled regex: membership is O(1) for exact names."""

    __slots__ = ("_exact", "_regex", "patterns")

    def __init__(self, patterns: Collection[str]) -> None:
        if isinstance(patterns, str):
            raise TypeError(
                f"GlobSet.patterns must be a collection of names, got {patterns!r:.200}"
            )
        self.patterns = tuple(patterns)
        for pattern in self.patterns:
            if not isinstance(pattern, str):
                raise TypeError(f"GlobSet.patterns must be str names, got {pattern!r:.200}")
        self._exact = frozenset(p for p in self.patterns if not _GLOB_CHARS & set(p))
        globs = [_translate(p) for p in self.patterns if _GLOB_CHARS & set(p)]
        self._regex = re.compile("|".join(f"(?:{g})" for g in globs)) if globs else None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __contains__(self, name: object) -> bool:
        if name in self._exact:
            return True
        return (
            self._regex is not None
            and isinstance(name, str)
            and self._regex.match(name) is not None
        )


def _translate(pattern: str) -> str:
    import fnmatch  # only for sets that hold a glob: exact names need none

    return fnmatch.translate(pattern)
