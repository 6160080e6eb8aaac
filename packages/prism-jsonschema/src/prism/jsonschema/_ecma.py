r"""ECMA-262 pattern classes spelled out, so RE2 and Rust's ``regex`` read a pattern the same way.

JSON Schema patterns are ECMA-262 (with the ``u`` flag: ``.`` is one code point). The engines'
own classes differ from it: RE2's ``.`` matches ``\r``, U+2028 and U+2029, its ``\s`` misses
``\v``, U+00A0 and the Unicode spaces (so ``\S`` accepts them), Rust's ``\d``/``\w``/``\s``
are Unicode. Each class shorthand is rewritten as an explicit set; what cannot be rewritten
exactly (``\b``, a negated shorthand inside ``[...]``, inline flags, ``[]``/``[^]``) is refused.
"""

from __future__ import annotations

import re
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
_CONTROL: Final = {"f": r"\x{c}", "n": r"\x{a}", "r": r"\x{d}", "t": r"\x{9}", "v": r"\x{b}"}
_IDENTITY: Final = frozenset("^$\\.*+?()[]{}|/")
r"""ECMA-262 (``u`` flag) identity escapes: its syntax characters and ``/`` (``-`` in a class).
Every other escape is a syntax error there (and ``\C``, ``\A``, ``\z`` ... mean something
else in RE2), so it is refused."""
_CATEGORIES: Final = frozenset(
    {
        *("C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me"),
        *("Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps"),
        *("S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs"),
    }
)
"""General_Category short names both RE2 and Rust's ``regex`` know."""
_SCRIPT_NAME: Final = re.compile(r"[A-Z][a-z]+(?:_[A-Z][a-z]+)*")
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
    """One escape, from an allowlist: anything ECMA-262 (``u`` flag) does not define is refused,
    never passed to RE2 (which would read ``\\pL``, ``\\x{41}``, ``\\C`` with its own meaning)."""
    if at >= len(pattern):
        raise _Refused("a pattern cannot end with a backslash")
    char = pattern[at]
    if char in "bB":
        raise _Refused(r"\b and \B (word boundaries) are not supported")
    if in_class and char in "DWS":
        raise _Refused(f"\\{char} inside a character class is not supported")
    table = _IN_CLASS if in_class else _OUTSIDE
    if char in table:
        return table[char], at + 1
    if char in _CONTROL:
        return _CONTROL[char], at + 1
    if char == "u":
        return _unicode(pattern, at + 1)
    if char == "x":
        return _hex_byte(pattern, at + 1)
    if char in "pP":
        return _property(pattern, at + 1, char)
    if char == "0" and not pattern[at + 1 : at + 2].isdigit():
        return r"\x{0}", at + 1
    if char in _IDENTITY or (in_class and char == "-"):
        return "\\" + char, at + 1
    raise _Refused(f"\\{char} is not an ECMA-262 escape")


def _hex_byte(pattern: str, at: int) -> tuple[str, int]:
    r"""``\xHH``: exactly two hex digits (``\x{41}`` is RE2's, a syntax error in ECMA-262)."""
    digits = pattern[at : at + 2]
    if len(digits) == 2 and set(digits) <= _HEX:
        return f"\\x{{{digits}}}", at + 2
    raise _Refused(r"malformed \xHH escape (exactly two hex digits)")


def _property(pattern: str, at: int, char: str) -> tuple[str, int]:
    r"""``\p{..}``/``\P{..}`` with a General_Category short name or ``Script=``/``sc=`` name."""
    end = pattern.find("}", at) if pattern.startswith("{", at) else -1
    body = pattern[at + 1 : end] if end > 0 else ""
    name, _, value = body.partition("=")
    if value and name in ("Script", "sc") and _SCRIPT_NAME.fullmatch(value):
        body = value
    elif value or body not in _CATEGORIES:
        raise _Refused(
            f"\\{char} must be \\{char}{{X}} with a General_Category short name or "
            "Script=Name (\\pL, \\p{^L} and bare script names are not ECMA-262)"
        )
    return f"\\{char}{{{body}}}", end + 1


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
