"""Unified diff of an edit, built from the known replaced spans (no whole-file diffing)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["unified_diff"]

_NO_NEWLINE = "\\ No newline at end of file"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final newline does not start another line
    return starts


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
        return [line + "\n" for line in lines]
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def _render(prefix: str, line: str, out: list[str]) -> None:
    body = line[:-1] if line.endswith("\n") else line
    out.append(prefix + body.removesuffix("\r"))
    if not line.endswith("\n"):
        out.append(_NO_NEWLINE)


def unified_diff(
    name: str, old: str, new: str, spans: Sequence[tuple[int, int, int]], context: int = 3
) -> str:
    """``spans``: sorted ``(start, end, replacement_length)`` in ``old``; ``new`` is ``old`` with
    each span replaced. Returns a unified diff with ``context`` lines around each change."""
    starts = _line_starts(old)
    old_lines = len(starts) if old else 0

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    def line_end(index: int) -> int:
        return starts[index + 1] if index + 1 < len(starts) else len(old)

    # Blocks of whole old lines touched by one or more spans: [first, last, old text, new text].
    blocks: list[tuple[int, int, str, str]] = []
    delta = 0
    pending: list[int] = []  # first, last, new_start, new_end (char offsets in new)
    for start, end, length in spans:
        first, last = line_of(start), line_of(max(end - 1, start))
        block_start = starts[first]
        if pending and first <= pending[1]:
            pending[1] = max(pending[1], last)
        else:
            if pending:
                blocks.append(_close(pending, old, new, line_end(pending[1]), starts))
            pending = [first, last, block_start + delta]
        delta += length - (end - start)
        pending_delta = delta
        pending.append(pending_delta)
    if pending:
        blocks.append(_close(pending, old, new, line_end(pending[1]), starts))
    return _hunks(name, blocks, old, starts, old_lines, context)


def _close(
    pending: list[int], old: str, new: str, end: int, starts: list[int]
) -> tuple[int, int, str, str]:
    first, last, new_start = pending[0], pending[1], pending[2]
    delta_after = pending[-1]
    return (first, last, old[starts[first] : end], new[new_start : end + delta_after])


def _hunks(
    name: str,
    blocks: list[tuple[int, int, str, str]],
    old: str,
    starts: list[int],
    old_lines: int,
    context: int,
) -> str:
    def old_line(index: int) -> str:
        end = starts[index + 1] if index + 1 < len(starts) else len(old)
        return old[starts[index] : end]

    out = [f"--- {name}", f"+++ {name}"]
    line_shift = 0  # new line number minus old line number before the current block
    i = 0
    while i < len(blocks):
        j = i
        while j + 1 < len(blocks) and blocks[j + 1][0] - blocks[j][1] - 1 <= 2 * context:
            j += 1
        lo = max(0, blocks[i][0] - context)
        hi = min(old_lines - 1, blocks[j][1] + context)
        body: list[str] = []
        old_count = new_count = 0
        new_lo = lo + line_shift
        cursor = lo
        for first, last, old_text, new_text in blocks[i : j + 1]:
            for k in range(cursor, first):
                _render(" ", old_line(k), body)
            old_count += first - cursor
            new_count += first - cursor
            removed, added = _split(old_text), _split(new_text)
            for line in removed:
                _render("-", line, body)
            for line in added:
                _render("+", line, body)
            old_count += len(removed)
            new_count += len(added)
            line_shift += len(added) - len(removed)
            cursor = last + 1
        for k in range(cursor, hi + 1):
            _render(" ", old_line(k), body)
        old_count += hi + 1 - cursor
        new_count += hi + 1 - cursor
        old_start = lo + 1 if old_count else lo
        new_start = new_lo + 1 if new_count else new_lo
        out.append(f"@@ -{old_start},{old_count} +{new_start},{new_count} @@")
        out.extend(body)
        i = j + 1
    return "\n".join(out) + "\n"
