"""Applying ``edit``'s replacements to file bytes: exact match first, fuzzy as a fallback,
line endings and BOM preserved, untouched bytes copied verbatim."""

from __future__ import annotations

import difflib
import itertools
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from ._common import ToolError
from ._diff import unified_diff
from ._normalize import Normalized, fuzzy_normalized

__all__ = ["Applied", "Edit", "apply_edits"]

_BOM = b"\xef\xbb\xbf"
_NEARBY_SCAN_LINES = 100_000
_NEARBY_CUTOFF = 0.5


@dataclass(frozen=True, slots=True)
class Edit:
    """One replacement, with line breaks already normalized to LF."""

    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Applied:
    """The new file bytes and what the model and host are told about the change."""

    data: bytes
    diff: str
    fuzzy: tuple[int, ...]  # 1-based numbers of the edits matched in the fuzzy space
    first_changed_line: int


class _View:
    """The file with CRLF pairs seen as LF, mapping LF-view indices back to the original."""

    def __init__(self, text: str) -> None:
        self.original = text
        if "\r\n" not in text:
            self.text, self._crlf = text, []
            return
        crlf, shift, i = [], 0, text.find("\r\n")
        while i != -1:
            crlf.append(i - shift)  # the LF-view index of this pair's "\n"
            shift += 1
            i = text.find("\r\n", i + 2)
        self.text, self._crlf = text.replace("\r\n", "\n"), crlf

    def to_original(self, index: int) -> int:
        return index + bisect_left(self._crlf, index)

    def newline_at(self, index: int) -> str:
        """The line break style of the line containing ``index`` (LF if the file has none)."""
        at = self.text.find("\n", index)
        if at == -1:
            at = self.text.rfind("\n", 0, index)
        if at == -1 or not self._crlf:
            return "\n"
        slot = bisect_left(self._crlf, at)
        return "\r\n" if slot < len(self._crlf) and self._crlf[slot] == at else "\n"


def apply_edits(raw: bytes, edits: Sequence[Edit], *, shown: str) -> Applied:
    """Apply every edit to the original ``raw`` bytes (edits never see each other's output)."""
    bom = raw.startswith(_BOM)
    try:
        text = raw[len(_BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            "not_utf8",
            f"{shown} is not valid UTF-8 (byte {exc.start}); edit only changes UTF-8 text files",
        ) from None
    view = _View(text)
    fuzzy_space: list[Normalized] = []
    spans: list[tuple[int, int, int]] = []  # (start, end) in the LF view, edit index
    fuzzy: list[int] = []
    for number, edit in enumerate(edits, start=1):
        start, end, was_fuzzy = _locate(view, edit, number, shown, fuzzy_space)
        spans.append((start, end, number))
        if was_fuzzy:
            fuzzy.append(number)
    spans.sort()
    for (_, prev_end, prev_no), (start, _, number) in itertools.pairwise(spans):
        if start < prev_end:
            first, second = sorted((prev_no, number))
            raise ToolError(
                "edit_overlap",
                f"Edits {first} and {second} overlap in {shown}; merge them into one edit",
            )
    pieces: list[str] = []
    original_spans: list[tuple[int, int, int]] = []
    cursor = 0
    for start, end, number in spans:
        o_start, o_end = view.to_original(start), view.to_original(end)
        replacement = edits[number - 1].new.replace("\n", view.newline_at(start))
        pieces.append(text[cursor:o_start])
        pieces.append(replacement)
        original_spans.append((o_start, o_end, len(replacement)))
        cursor = o_end
    pieces.append(text[cursor:])
    result = "".join(pieces)
    if result == text:
        raise ToolError("edit_noop", f"The edits leave {shown} unchanged; nothing was written")
    return Applied(
        data=(_BOM if bom else b"") + result.encode("utf-8"),
        diff=unified_diff(shown, text, result, original_spans),
        fuzzy=tuple(fuzzy),
        first_changed_line=text.count("\n", 0, original_spans[0][0]) + 1,
    )


def _locate(
    view: _View, edit: Edit, number: int, shown: str, fuzzy_space: list[Normalized]
) -> tuple[int, int, bool]:
    """The LF-view span of ``edit.old``: unique exact match, else unique fuzzy match."""
    hits = _find(view.text, edit.old)
    if len(hits) == 1:
        return hits[0], hits[0] + len(edit.old), False
    if hits:
        raise _ambiguous(view.text, edit.old, hits, number, shown, "")
    if not fuzzy_space:
        fuzzy_space.append(fuzzy_normalized(view.text))
    space = fuzzy_space[0]
    needle = fuzzy_normalized(edit.old).text
    hits = _find(space.text, needle) if needle.strip() else []
    if len(hits) == 1:
        start, end = space.span(hits[0], hits[0] + len(needle))
        return start, end, True
    if hits:
        raise _ambiguous(
            space.text, needle, hits, number, shown, " after normalizing whitespace and quotes"
        )
    raise _not_found(view.text, edit.old, number, shown)


def _find(haystack: str, needle: str) -> list[int]:
    """Start of every occurrence (overlapping ones too), stopping after six."""
    found: list[int] = []
    at = haystack.find(needle)
    while at != -1 and len(found) < 6:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


def _ambiguous(
    haystack: str, needle: str, hits: list[int], number: int, shown: str, how: str
) -> ToolError:
    lines = ", ".join(str(haystack.count("\n", 0, at) + 1) for at in hits[:5])
    count = f"{len(hits)}" if len(hits) < 6 else "6 or more"
    return ToolError(
        "edit_ambiguous",
        f"Edit {number}: old_text occurs {count} times in {shown}{how} (at lines {lines}); "
        "include more surrounding lines so it matches exactly once",
    )


def _not_found(text: str, old: str, number: int, shown: str) -> ToolError:
    message = (
        f"Edit {number}: old_text was not found in {shown}. It must match the file exactly, "
        "including whitespace, indentation and line breaks; read the file again if unsure."
    )
    target = next((line.strip() for line in old.split("\n") if line.strip()), "")
    nearby = _nearby(text, target) if target else []
    if nearby:
        shown_lines = "\n".join(f"  line {no}: {line[:200]}" for no, line in nearby)
        message += f"\nMost similar lines in the file:\n{shown_lines}"
    return ToolError("edit_not_found", message)


def _nearby(text: str, target: str) -> list[tuple[int, str]]:
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    scored: list[tuple[float, int, str]] = []
    for index, line in enumerate(text.split("\n", _NEARBY_SCAN_LINES)[:_NEARBY_SCAN_LINES]):
        candidate = line.strip()
        if not candidate:
            continue
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() < _NEARBY_CUTOFF or matcher.quick_ratio() < _NEARBY_CUTOFF:
            continue
        ratio = matcher.ratio()
        if ratio >= _NEARBY_CUTOFF:
            scored.append((ratio, index + 1, line.rstrip()))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:3]
    return sorted((no, line) for _, no, line in best)
