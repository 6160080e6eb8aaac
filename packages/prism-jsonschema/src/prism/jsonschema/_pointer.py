"""JSON Pointers (RFC 6901) built lazily from linked paths: O(1) per step, joined only on error."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

__all__ = ["Path", "escape", "join_pointer", "location", "pointer"]

Path: TypeAlias = "tuple[Path, str] | None"
"""``None`` is the root; ``(parent, segment)`` one step down."""


def escape(segment: str) -> str:
    """Escape one reference token (``~`` → ``~0``, ``/`` → ``~1``)."""
    return segment.replace("~", "~0").replace("/", "~1")


def join_pointer(segments: Iterable[object]) -> str:
    """The JSON Pointer of ``segments`` (``""`` for the root)."""
    return "".join(["/" + escape(str(s)) for s in segments])  # a list: faster than a generator


def pointer(path: Path) -> str:
    """The JSON Pointer of a linked path."""
    segments: list[str] = []
    while path is not None:
        path, segment = path
        segments.append(segment)
    segments.reverse()
    return join_pointer(segments)


def location(path: Path) -> str:
    """Where in a schema document: ``#`` followed by the JSON Pointer."""
    return "#" + pointer(path)
