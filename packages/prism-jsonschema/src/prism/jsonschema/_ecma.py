r"""ECMA-262 pattern classes spelled out, so RE2 and Rust's ``regex`` read a pattern the same way.

JSON Schema patterns are ECMA-262 (with the ``u`` flag: ``.`` is one code point). The engines'
own classes differ from it: RE2's ``.`` matches ``\r``, U+2028 and U+2029, its ``\s`` misses
``\v``, U+00A0 and the Unicode spaces (so ``\S`` accepts them), Rust's ``\d``/``\w``/``\s``
are Unicode. Each class shorthand is rewritten as an explicit set; what cannot be rewritten
exactly (``\b``, a negated shorthand inside ``[...]``, inline flags, ``[]``/``[^]``) is refused,
and so is what the ``u`` flag makes a syntax error but RE2 reads some way of its own (``[!-\d]``,
``a{``, a lone ``]``, ``^*``): a pattern is run under one reading, ECMA's, or not at all.
"""

from __future__ import annotations

import re
from typing import Final

from ._regex import PatternRefused

__all__ = ["ECMA_SPACE", "reads_unicode_tables", "translate"]

ECMA_SPACE: Final = r"\x09-\x0D\x20\xA0" + "\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
r"""ECMA-262 WhiteSpace and LineTerminator: what ``\s`` means there (spelled as ``_spell`` does)."""

_DIGIT: Final = "0-9"
_WORD: Final = "0-9A-Za-z_"
_IN_CLASS: Final = {"d": _DIGIT, "w": _WORD, "s": ECMA_SPACE}
_OUTSIDE: Final = {
    **{key: f"[{value}]" for key, value in _IN_CLASS.items()},
    **{key.upper(): f"[^{value}]" for key, value in _IN_CLASS.items()},
}
_DOT: Final = r"[^\x0A\x0D" + "\u2028\u2029]"
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_CONTROL_POINTS: Final = {"f": 0xC, "n": 0xA, "r": 0xD, "t": 0x9, "v": 0xB}
_BRACES: Final = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_GROUP_NAME: Final = re.compile(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>")
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
_PROPERTY_ESCAPE: Final = re.compile(r"(?<!\\)(?:\\\\)*\\[pP]")
r"""A ``\p``/``\P`` escape in spelled-out text (every backslash there starts a pair)."""
_SET_OPERATORS: Final = ("[", "&&", "--", "~~")
"""Inside ``[...]`` these are literal in ECMA-262 but nest or combine classes in Rust."""


class _Refused(PatternRefused):
    def __init__(self, why: str) -> None:
        super().__init__(f"{why} (ECMA-262 patterns on RE2: no backreferences or lookaround)")


def translate(pattern: str) -> str:
    """``pattern`` with every class spelled out; ``PatternRefused`` naming what cannot be."""
    out: list[str] = []
    names: set[str] = set()
    last = ""
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char in "*+?{" and last in ("^", "$"):
            raise _Refused(f"{last!r} cannot be repeated in ECMA-262 (u flag): nothing to repeat")
        start = i
        if char == "\\":
            text, i, _ = _escape(pattern, i + 1, in_class=False)
        elif char == "[":
            text, i = _class(pattern, i + 1)
        elif char == "{":
            text, i = _quantifier(pattern, i)
        elif char in "]}":
            raise _Refused(f"a lone {char!r} is a syntax error in ECMA-262 (u flag): escape it")
        elif char == "(" and pattern.startswith("(?", i):
            text, i = _group(pattern, i, names)
        else:
            text, i = (_DOT if char == "." else char), i + 1
        out.append(text)
        last = char if i == start + 1 else ""
    return "".join(out)


def reads_unicode_tables(spelled: str) -> bool:
    r"""Whether a spelled-out pattern reads Unicode properties (``\p{..}``/``\P{..}``): its
    meaning then depends on the Unicode version of the engine's tables."""
    return _PROPERTY_ESCAPE.search(spelled) is not None


def _quantifier(pattern: str, at: int) -> tuple[str, int]:
    """``{n}``, ``{n,}`` or ``{n,m}``; any other ``{`` is a syntax error with the u flag (RE2
    would read it as a literal brace)."""
    found = _BRACES.match(pattern, at)
    if found is None:
        raise _Refused(
            "'{' must start a quantifier {n}, {n,} or {n,m} in ECMA-262 (u flag): escape it"
        )
    return found.group(), found.end()


def _class(pattern: str, at: int) -> tuple[str, int]:
    """One ``[...]`` from just after its ``[``: every atom spelled out, and a range only between
    two single characters in order (``[!-\\d]`` is a syntax error with the u flag)."""
    out = ["["]
    if pattern.startswith("^", at):
        out.append("^")
        at += 1
    if pattern.startswith("]", at):
        raise _Refused("an empty class ([] or [^]) reads differently in RE2")
    while True:
        low, at = _class_atom(pattern, at)
        if pattern.startswith("-", at) and not pattern.startswith("-]", at):
            high, at = _class_atom(pattern, at + 1)
            if low[1] is None or high[1] is None:
                raise _Refused(
                    "a class range with a class escape (\\d, \\w, \\s, \\p) as an end is a "
                    "syntax error in ECMA-262 (u flag)"
                )
            if low[1] > high[1]:
                raise _Refused("a class range is out of order")
            out.append(f"{low[0]}-{high[0]}")
        else:
            out.append(low[0])
        if pattern.startswith("]", at):
            out.append("]")
            return "".join(out), at + 1


def _class_atom(pattern: str, at: int) -> tuple[tuple[str, int | None], int]:
    """One class atom: its RE2 spelling and its code point (``None`` for a class escape)."""
    if at >= len(pattern):
        raise _Refused("a character class is not closed")
    char = pattern[at]
    if char == "\\":
        text, end, point = _escape(pattern, at + 1, in_class=True)
        return (text, point), end
    if any(pattern.startswith(op, at) for op in _SET_OPERATORS):
        raise _Refused(f"{char!r} inside a character class must be escaped")
    return ("\\-" if char == "-" else char, ord(char)), at + 1


def _escape(pattern: str, at: int, *, in_class: bool) -> tuple[str, int, int | None]:
    """One escape, from an allowlist: anything ECMA-262 (``u`` flag) does not define is refused,
    never passed to RE2 (which would read ``\\pL``, ``\\x{41}``, ``\\C`` with its own meaning).
    Returns its spelling, where it ends and its code point (``None`` for a class escape)."""
    if at >= len(pattern):
        raise _Refused("a pattern cannot end with a backslash")
    char = pattern[at]
    if char in "bB":
        raise _Refused(r"\b and \B (word boundaries) are not supported")
    if in_class and char in "DWS":
        raise _Refused(f"\\{char} inside a character class is not supported")
    table = _IN_CLASS if in_class else _OUTSIDE
    if char in table:
        return table[char], at + 1, None
    if char in "pP":
        return *_property(pattern, at + 1, char), None
    if char == "u":
        return _unicode(pattern, at + 1)
    if char == "x":
        return _hex_byte(pattern, at + 1)
    if char in _CONTROL_POINTS:
        return _spell(_CONTROL_POINTS[char]), at + 1, _CONTROL_POINTS[char]
    if char == "0" and not pattern[at + 1 : at + 2].isdigit():
        return _spell(0), at + 1, 0
    if char in _IDENTITY or (in_class and char == "-"):
        return "\\" + char, at + 1, ord(char)
    raise _Refused(f"\\{char} is not an ECMA-262 escape")


def _hex_byte(pattern: str, at: int) -> tuple[str, int, int]:
    r"""``\xHH``: exactly two hex digits (``\x{41}`` is RE2's, a syntax error in ECMA-262)."""
    digits = pattern[at : at + 2]
    if len(digits) == 2 and set(digits) <= _HEX:
        return _spell(int(digits, 16)), at + 2, int(digits, 16)
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


def _unicode(pattern: str, at: int) -> tuple[str, int, int]:
    r"""``\uXXXX`` or ``\u{X...}`` as ``\x{...}`` (RE2 has no ``\u``). A ``\uHHHH\uLLLL``
    surrogate pair is refused: with the u flag it is one code point, Python's ``re`` (the
    reference's engine) reads two lone surrogates, and no reading may be the wider one."""
    if pattern.startswith("{", at):
        end = pattern.find("}", at)
        digits = pattern[at + 1 : end] if end > 0 else ""
        if digits and len(digits) <= 6 and set(digits) <= _HEX and int(digits, 16) <= 0x10FFFF:
            return _spell(int(digits, 16)), end + 1, int(digits, 16)
        raise _Refused(r"malformed \u{...} escape")
    digits = pattern[at : at + 4]
    if len(digits) != 4 or not set(digits) <= _HEX:
        raise _Refused(r"malformed \uXXXX escape")
    point = int(digits, 16)
    trail = pattern[at + 6 : at + 10] if pattern.startswith("\\u", at + 4) else ""
    low = int(trail, 16) if len(trail) == 4 and set(trail) <= _HEX else 0
    if 0xD800 <= point <= 0xDBFF and 0xDC00 <= low <= 0xDFFF:
        raise _Refused(
            r"a \uHHHH\uLLLL surrogate pair escape is read differently by ECMA-262 (u flag: "
            r"one code point) and Python's re (two surrogates): write \u{1F600}"
        )
    return _spell(point), at + 4, point


def _spell(point: int) -> str:
    r"""A code point as every reader of the spelled pattern takes it: ``\xHH`` up to U+00FF,
    else the character itself. RE2, Rust's ``regex`` and jsonschema-rs's ``format: "regex"``
    (its draft-06/07 meta-schema asserts it on every pattern) all read both; ``\x{...}`` is
    RE2's and Rust's only. A surrogate, which has no UTF-8 form, stays ``\x{...}``."""
    if point <= 0xFF:
        return f"\\x{point:02X}"
    if 0xD800 <= point <= 0xDFFF:
        return f"\\x{{{point:X}}}"
    return chr(point)


def _group(pattern: str, at: int, names: set[str]) -> tuple[str, int]:
    """Only ``(?:...)`` and ``(?<name>...)`` with a distinct ASCII identifier as name: inline
    flags would change what ``.``/``$`` mean, and a repeated or malformed name is a syntax error
    with the u flag that RE2 accepts."""
    if pattern.startswith("(?:", at):
        return "(?:", at + 3
    named = _GROUP_NAME.match(pattern, at)
    if named is not None:
        if named.group(1) in names:
            raise _Refused(f"the group name {named.group(1)!r} is used twice")
        names.add(named.group(1))
        return named.group(), named.end()
    raise _Refused(
        "only (?:...) and (?<name>...) groups (name: ASCII letters, digits and _, not first a "
        "digit) are supported (no inline flags or lookaround)"
    )
