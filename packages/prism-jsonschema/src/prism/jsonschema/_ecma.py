r"""ECMA-262 pattern classes spelled out, so RE2 and Rust's ``regex`` read a pattern the same way.

JSON Schema patterns are ECMA-262 (with the ``u`` flag: ``.`` is one code point). The engines'
own classes differ from it: RE2's ``.`` matches ``\r``, U+2028 and U+2029, its ``\s`` misses
``\v``, U+00A0 and the Unicode spaces (so ``\S`` accepts them), Rust's ``\d``/``\w``/``\s``
are Unicode. Each class shorthand is rewritten as an explicit set; what cannot be rewritten
exactly (``\b``, a negated shorthand inside ``[...]``, inline flags, ``[]``/``[^]``) is refused.
"""

from __future__ import annotations

from typing import Final

from ._regex import PatternRefused

__all__ = ["ECMA_SPACE", "translate"]

ECMA_SPACE: Final = (
    r"\x{9}-\x{d}\x{20}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}"
    r"\x{3000}\x{feff}"
)
r"""ECMA-262 WhiteSpace and LineTerminator: what ``\s`` means there."""

_DIGIT: Final = "0-9"
_WORD: Final = "0-9A-Za-z_"
_IN_CLASS: Final = {"d": _DIGIT, "w": _WORD, "s": ECMA_SPACE}
_OUTSIDE: Final = {
    **{key: f"[{value}]" for key, value in _IN_CLASS.items()},
    **{key.upper(): f"[^{value}]" for key, value in _IN_CLASS.items()},
}
_DOT: Final = r"[^\x{a}\x{d}\x{2028}\x{2029}]"
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_LETTER_ESCAPES: Final = frozenset("fnrtvdDsSwWpPuxc0123456789")
r"""Escapes ECMA-262 (``u`` flag) defines; any other letter is a syntax error there (and
``\C``, ``\A``, ``\z`` ... mean something else in RE2)."""
_SET_OPERATORS: Final = ("[", "&&", "--", "~~")
"""Inside ``[...]`` these are literal in ECMA-262 but nest or combine classes in Rust."""


class _Refused(PatternRefused):
    def __init__(self, why: str) -> None:
        super().__init__(f"{why} (ECMA-262 patterns on RE2: no backreferences or lookaround)")


def translate(pattern: str) -> str:
    """``pattern`` with every class spelled out; ``PatternRefused`` naming what cannot be."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            text, i = _escape(pattern, i + 1, in_class)
            out.append(text)
            continue
        if in_class:
            if any(pattern.startswith(op, i) for op in _SET_OPERATORS):
                raise _Refused(f"{char!r} inside a character class must be escaped")
            in_class = char != "]"
        elif char == "[":
            in_class = True
            start = i + 2 if pattern.startswith("[^", i) else i + 1
            if pattern.startswith("]", start):
                raise _Refused("an empty class ([] or [^]) reads differently in RE2")
        elif char == ".":
            char = _DOT
        elif char == "(" and pattern.startswith("(?", i):
            _group(pattern, i)
        out.append(char)
        i += 1
    return "".join(out)


def _escape(pattern: str, at: int, in_class: bool) -> tuple[str, int]:
    if at >= len(pattern):
        raise _Refused("a pattern cannot end with a backslash")
    char = pattern[at]
    if char in "bB":
        raise _Refused(r"\b and \B (word boundaries) are not supported")
    if char.isascii() and char.isalnum() and char not in _LETTER_ESCAPES:
        raise _Refused(f"\\{char} is not an ECMA-262 escape")
    if in_class:
        if char in "DWS":
            raise _Refused(f"\\{char} inside a character class is not supported")
        if char in _IN_CLASS:
            return _IN_CLASS[char], at + 1
    elif char in _OUTSIDE:
        return _OUTSIDE[char], at + 1
    if char == "u":
        return _unicode(pattern, at + 1)
    return "\\" + char, at + 1


def _unicode(pattern: str, at: int) -> tuple[str, int]:
    r"""``\uXXXX`` or ``\u{X...}`` as ``\x{...}`` (RE2 has no ``\u``)."""
    if pattern.startswith("{", at):
        end = pattern.find("}", at)
        digits = pattern[at + 1 : end] if end > 0 else ""
        if digits and len(digits) <= 6 and set(digits) <= _HEX:
            return f"\\x{{{digits}}}", end + 1
        raise _Refused(r"malformed \u{...} escape")
    digits = pattern[at : at + 4]
    if len(digits) == 4 and set(digits) <= _HEX:
        return f"\\x{{{digits}}}", at + 4
    raise _Refused(r"malformed \uXXXX escape")


def _group(pattern: str, at: int) -> None:
    """Only ``(?:...)`` and ``(?<name>...)``: inline flags would change what ``.``/``$`` mean."""
    rest = pattern[at + 2 : at + 4]
    if rest.startswith(":") or (rest.startswith("<") and rest[1:2] not in ("=", "!")):
        return
    raise _Refused(
        "only (?:...) and (?<name>...) groups are supported (no inline flags or lookaround)"
    )
