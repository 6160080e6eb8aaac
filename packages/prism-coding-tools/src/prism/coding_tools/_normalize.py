"""The fuzzy-match space of ``edit``: line-end whitespace dropped, quotes, dashes and odd
spaces made ASCII, compatibility-decomposed (NFKC-equivalent for matching), with a map back
to positions in the original text so only the matched span is ever replaced."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

__all__ = ["Normalized", "fuzzy_normalized"]

_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys(
            "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u202f\u205f\u3000",
            " ",
        ),
    }
)
# Either a run of whitespace ending a line, or one non-ASCII character to decompose.
_SPECIAL = re.compile(r"[ \t\f\v\r]+(?=\n|\Z)|[^\x00-\x7f]")
_TRAILING_ONLY = re.compile(r"[ \t\f\v\r]+(?=\n|\Z)")


class Normalized:
    """``text`` in the fuzzy space, and ``to_original`` mapping its indices back."""

    __slots__ = ("_flat", "_norm", "_orig", "text")

    def __init__(self, text: str, norm: list[int], orig: list[int], flat: list[bool]) -> None:
        self.text = text
        self._norm, self._orig, self._flat = norm, orig, flat

    def to_original(self, index: int) -> int:
        """The original index of the character at normalized ``index``."""
        i = bisect_right(self._norm, index) - 1
        return self._orig[i] if self._flat[i] else self._orig[i] + index - self._norm[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering normalized ``[start, end)`` (``end > start``)."""
        return self.to_original(start), self.to_original(end - 1) + 1


def fuzzy_normalized(text: str) -> Normalized:
    """Map ``text`` (LF line endings) into the fuzzy space."""
    translated = text.translate(_ASCII)  # one character for one: indices unchanged
    pieces: list[str] = []
    norm, orig, flat = [0], [0], [False]
    out = 0  # length of the normalized text so far
    cursor = 0  # original index not yet copied

    def linear_from(original: int) -> None:
        norm.append(out)
        orig.append(original)
        flat.append(False)

    # Text already in NFKD (all ASCII, most code) needs no per-character decomposition.
    special = _TRAILING_ONLY if unicodedata.is_normalized("NFKD", translated) else _SPECIAL
    for match in special.finditer(translated):
        start, end = match.span()
        pieces.append(translated[cursor:start])
        out += start - cursor
        cursor = end
        char = match.group()
        if char[0] in " \t\f\v\r":
            linear_from(end)  # dropped: later characters shift left
            continue
        decomposed = unicodedata.normalize("NFKD", char)
        if decomposed == char:
            pieces.append(char)
            out += 1
            continue
        norm.append(out)
        orig.append(start)
        flat.append(True)
        pieces.append(decomposed)
        out += len(decomposed)
        linear_from(end)
    pieces.append(translated[cursor:])
    return Normalized("".join(pieces), norm, orig, flat)
