"""Shell words after expansion, as far as they can be known without running anything.

A word is built as a list of characters tagged QUOTED (no globbing, brace expansion or field
splitting) and EXPANDED (came from a parameter expansion, so it is field-split when unquoted).
Two views are kept: ``exact`` (None as soon as any part is unknown; used to *allow*) and ``guess``
(unknown parts become ``UNKNOWN``; tracked variables, ``${x:-default}`` and ``$IFS`` are applied;
used only to *deny*).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "EXPANDED",
    "QUOTED",
    "UNKNOWN",
    "Arg",
    "Chars",
    "Word",
    "brace_expand",
    "brace_sample",
    "chars_text",
    "decode_ansi_c",
    "has_glob",
    "lit",
    "names",
    "split_fields",
    "unescape_double",
    "unescape_unquoted",
]

QUOTED = 1
EXPANDED = 2
UNKNOWN = "\ufffd"
"""Stands for a part of a word whose value cannot be known statically."""

MAX_BRACE_WORDS = 256
MAX_BRACE_CHARS = 65_536
"""Characters all words of one brace expansion may hold together (more: too large)."""
MAX_BRACE_GROUPS = 32
"""Brace openings in one word that are looked at (more: the word is too large to expand)."""

Chars = list[tuple[str, int]]


@dataclass(frozen=True, slots=True)
class Arg:
    """One field of a command line: its text, whether it is globbed, where it came from."""

    text: str
    glob: bool = False
    subst: tuple[int, ...] = ()
    procsub: bool = False
    globbed: bool = False
    """A path the policy's pathname expansion produced (the file system chose this word)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word: raw source text, exact fields (or None) and speculative fields."""

    raw: str
    exact: tuple[Arg, ...] | None
    guess: tuple[Arg, ...]
    subst: tuple[int, ...] = ()
    procsub: bool = False
    dynamic: str | None = None


def names(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (keeps data tables readable)."""
    return frozenset(text.split())


def lit(text: str, flags: int = 0) -> Chars:
    """Tag every character of ``text`` with ``flags``."""
    return [(ch, flags) for ch in text]


def chars_text(chars: Chars) -> str:
    return "".join(ch for ch, _ in chars)


def has_glob(chars: Chars) -> bool:
    """True when an unquoted ``*``, ``?`` or ``[`` would make the shell expand a pathname."""
    return any(ch in "*?[" and not flags & QUOTED for ch, flags in chars)


def unescape_unquoted(text: str) -> Chars:
    """Unquoted word text: a backslash quotes the next character; backslash-newline vanishes."""
    out: Chars = []
    index = 0
    while index < len(text):
        ch = text[index]
        if ch == "\\" and index + 1 < len(text):
            nxt = text[index + 1]
            if nxt != "\n":
                out.append((nxt, QUOTED))
            index += 2
            continue
        out.append((ch, 0))
        index += 1
    return out


def unescape_double(text: str) -> Chars:
    r"""Inside double quotes a backslash only escapes ``$ ` " \`` and newline."""
    out: Chars = []
    index = 0
    while index < len(text):
        ch = text[index]
        if ch == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
            if text[index + 1] != "\n":
                out.append((text[index + 1], QUOTED))
            index += 2
            continue
        out.append((ch, QUOTED))
        index += 1
    return out


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _take(text: str, start: int, digits: str, most: int) -> tuple[str, int]:
    end = start
    while end < len(text) and end - start < most and text[end] in digits:
        end += 1
    return text[start:end], end


def decode_ansi_c(body: str) -> str:
    r"""Decode the inside of ``$'...'`` as bash does (``\x72\x6d`` is ``rm``)."""
    hexdigits = "0123456789abcdefABCDEF"
    out: list[str] = []
    index = 0
    while index < len(body):
        ch = body[index]
        if ch != "\\" or index + 1 >= len(body):
            out.append(ch)
            index += 1
            continue
        code = body[index + 1]
        index += 2
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
        elif code in "01234567":
            digits, index = _take(body, index - 1, "01234567", 3)
            out.append(chr(int(digits, 8) & 0xFF))
        elif code in "xuU":
            most = {"x": 2, "u": 4, "U": 8}[code]
            digits, index = _take(body, index, hexdigits, most)
            out.append(chr(min(int(digits, 16), 0x10FFFF)) if digits else "\\" + code)
        elif code == "c" and index < len(body):
            out.append(chr(ord(body[index]) & 0x1F))
            index += 1
        else:
            out.append("\\" + code)
    return "".join(out)


def split_fields(chars: Chars, ifs: str) -> list[Chars]:
    """Field-split at unquoted characters that came from an expansion and are in ``ifs``."""
    fields: list[Chars] = [[]]
    for ch, flags in chars:
        if flags & EXPANDED and not flags & QUOTED and ch in ifs:
            if fields[-1] or not ch.isspace():
                fields.append([])
            continue
        fields[-1].append((ch, flags))
    if not chars:
        return [[]]
    return [field for field in fields if field] or []


def _is_active(item: tuple[str, int], ch: str) -> bool:
    return item[0] == ch and not item[1] & (QUOTED | EXPANDED)


def _brace_parts(chars: Chars, open_at: int) -> tuple[int, list[Chars]] | None:
    """Find the matching ``}`` and the top-level comma parts, or None when it is no expansion."""
    depth = 0
    parts: list[Chars] = [[]]
    for index in range(open_at + 1, len(chars)):
        item = chars[index]
        if _is_active(item, "{"):
            depth += 1
        elif _is_active(item, "}"):
            if depth == 0:
                return index, parts
            depth -= 1
        elif _is_active(item, ",") and depth == 0:
            parts.append([])
            continue
        parts[-1].append(item)
    return None


class _TooLarge(Exception):
    pass


def _sequence(body: str) -> list[str] | None:
    """``1..5`` / ``a..e`` / ``1..9..2``; None when ``body`` is no sequence (too large raises)."""
    pieces = body.split("..")
    if len(pieces) not in (2, 3):
        return None
    step_text = pieces[2] if len(pieces) == 3 else "1"
    try:
        step = abs(int(step_text)) or 1
        start, end = int(pieces[0]), int(pieces[1])
        numeric = True
    except ValueError:
        if not (len(pieces[0]) == 1 and len(pieces[1]) == 1):
            return None
        start, end, numeric = ord(pieces[0]), ord(pieces[1]), False
    if abs(end - start) // step > MAX_BRACE_WORDS:
        raise _TooLarge
    direction = 1 if end >= start else -1
    values = range(start, end + direction, step * direction)
    return [str(v) if numeric else chr(v) for v in values]


def _brace_count(chars: Chars) -> int:
    return sum(1 for item in chars if _is_active(item, "{"))


def brace_expand(chars: Chars, limit: int = MAX_BRACE_WORDS) -> list[Chars] | None:
    """Bash brace expansion (``{a,b}``, ``{1..3}``); None when it would exceed ``limit`` words
    or ``MAX_BRACE_CHARS`` characters, or has more than ``MAX_BRACE_GROUPS`` openings."""
    if _brace_count(chars) > MAX_BRACE_GROUPS:
        return None
    try:
        return _brace_expand(chars, limit)
    except _TooLarge:
        return None


def brace_sample(chars: Chars, limit: int = MAX_BRACE_WORDS) -> list[Chars]:
    """For a too-large expansion: every alternative of each brace group, the others at their
    first alternative (linear in size). Used only for the speculative (deny) view."""
    if _brace_count(chars) > MAX_BRACE_GROUPS:
        return [chars]
    sampled = _brace_sample(chars, limit)
    total = 0
    for index, variant in enumerate(sampled):
        total += len(variant)
        if total > MAX_BRACE_CHARS:
            return sampled[: max(index, 1)]
    return sampled


def _brace_groups(chars: Chars) -> Iterator[tuple[int, int, list[Chars]]]:
    """Each active ``{...}`` group in ``chars``: where it opens, where it closes, its parts."""
    for open_at, item in enumerate(chars):
        if _is_active(item, "{"):
            found = _brace_parts(chars, open_at)
            if found is not None:
                yield open_at, found[0], found[1]


def _brace_sample(chars: Chars, limit: int) -> list[Chars]:
    for open_at, close_at, parts in _brace_groups(chars):
        alternatives = parts if len(parts) > 1 else [parts[0]]
        prefix, rest = chars[:open_at], _brace_sample(chars[close_at + 1 :], limit)
        variants = [prefix + alt + rest[0] for alt in alternatives[:limit]]
        variants += [prefix + alternatives[0] + tail for tail in rest[1:limit]]
        return variants
    return [chars]


def _brace_expand(chars: Chars, limit: int) -> list[Chars]:
    for open_at, close_at, parts in _brace_groups(chars):
        alternatives: list[Chars]
        if len(parts) > 1:
            alternatives = parts
        else:
            seq = (
                _sequence(chars_text(parts[0]))
                if all(not f & (QUOTED | EXPANDED) for _, f in parts[0])
                else None
            )
            if seq is None:
                continue
            alternatives = [lit(value) for value in seq]
        prefix, suffix = chars[:open_at], chars[close_at + 1 :]
        results: list[Chars] = []
        for alternative in alternatives:
            results.extend(_brace_expand(prefix + alternative + suffix, limit))
            if len(results) > limit or len(results) * len(chars) > MAX_BRACE_CHARS * 4:
                raise _TooLarge
        return results
    return [chars]
