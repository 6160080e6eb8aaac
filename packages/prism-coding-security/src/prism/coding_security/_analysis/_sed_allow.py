"""``sed`` without approval: a strict recognizer for scripts that only read and print.

Accepted: one-line scripts of ``s`` (flags ``g p i I m M`` and a number), ``y``, and the
commands ``p P d D q Q = l n N g G h H x z F { }`` with line-number, ``$``, ``first~step`` and
``/regex/`` addresses. Everything else — ``w``/``W``/``r``/``R``/``e``, the ``e`` and ``w``
flags, ``a``/``i``/``c`` text, labels, comments, new lines, unusual delimiters, a delimiter or
backslash inside a bracket expression — is not recognized and needs approval. GNU sed reads a
bracket expression as one unit (``s/[/]/;/e`` runs a command), so brackets are parsed too.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._options import parse_args
from ._specs import SPECS
from ._words import Arg

__all__ = ["read_only_script", "sed_read_only"]

_DELIMITERS = frozenset("/|#@!%^+")
_SIMPLE = frozenset("pPdDqQ=lnNgGhHxzF")
_S_FLAGS = frozenset("gpiImM0123456789")
_REFUSE = "is sed with a script that could write, run or read other files"


class _Unrecognized(Exception):
    pass


def _bracket(script: str, index: int, delimiter: str) -> int:
    """Index just past a bracket expression opened at ``index - 1``."""
    if script[index : index + 1] == "^":
        index += 1
    if script[index : index + 1] == "]":
        index += 1
    while index < len(script):
        ch = script[index]
        if script.startswith("[:", index):
            end = script.find(":]", index + 2)
            if end < 0 or delimiter in script[index:end]:
                raise _Unrecognized
            index = end + 2
        elif ch == "]":
            return index + 1
        elif ch == delimiter or ch in "\\[":
            raise _Unrecognized
        else:
            index += 1
    raise _Unrecognized


def _part(script: str, index: int, delimiter: str, *, regex: bool) -> int:
    """Index just past the ``delimiter`` that closes the part starting at ``index``."""
    while index < len(script):
        ch = script[index]
        if ch == "\\":
            if index + 1 >= len(script):
                raise _Unrecognized
            index += 2
        elif ch == delimiter:
            return index + 1
        elif regex and ch == "[":
            index = _bracket(script, index + 1, delimiter)
        else:
            index += 1
    raise _Unrecognized


def _digits(script: str, index: int) -> int:
    while index < len(script) and script[index].isdigit():
        index += 1
    return index


def _one_address(script: str, index: int, *, second: bool) -> int:
    if index < len(script) and script[index] == "/":
        index = _part(script, index + 1, "/", regex=True)
        while index < len(script) and script[index] in "IM":
            index += 1
        return index
    if index < len(script) and script[index] == "$":
        return index + 1
    if second and index < len(script) and script[index] in "+~":
        index += 1
    start = index
    index = _digits(script, index)
    if index < len(script) and script[index] == "~" and index > start:
        index = _digits(script, index + 1)
    return index


def _address(script: str, index: int) -> int:
    index = _one_address(script, index, second=False)
    if index < len(script) and script[index] == ",":
        index = _one_address(script, index + 1, second=True)
    while index < len(script) and script[index] in " !":
        index += 1
    return index


def _command(script: str, index: int) -> int:
    command = script[index]
    index += 1
    if command in "sy":
        if index >= len(script) or script[index] not in _DELIMITERS:
            raise _Unrecognized
        delimiter = script[index]
        index = _part(script, index + 1, delimiter, regex=command == "s")
        index = _part(script, index, delimiter, regex=False)
        while command == "s" and index < len(script) and script[index] in _S_FLAGS:
            index += 1
        return index
    if command in _SIMPLE:
        return _digits(script, index) if command in "qQl" else index
    if command in "{}":
        return index
    raise _Unrecognized


def read_only_script(script: str) -> bool:
    """Whether ``script`` is recognized as one that only reads its input and prints."""
    if any(ch in script for ch in "\n\r\x00"):
        return False
    index = 0
    try:
        while index < len(script):
            while index < len(script) and script[index] in " ;":
                index += 1
            if index >= len(script):
                return True
            index = _address(script, index)
            if index >= len(script):
                return False
            opened = script[index] == "{"
            index = _command(script, index)
            while index < len(script) and script[index] == " ":
                index += 1
            if not opened and index < len(script) and script[index] not in ";}":
                return False
    except _Unrecognized:
        return False
    return True


def sed_read_only(args: Sequence[Arg]) -> tuple[list[Arg], str | None]:
    """``sed [-n -E -r -s -u -z …] SCRIPT|-e SCRIPT… FILE…``: no ``-i``, no ``-f``."""
    parsed = parse_args(args, SPECS["sed"])
    if parsed.has("-i"):
        return [], "edits files in place (sed -i)"
    if parsed.has("-f") or parsed.unknown:
        return [], _REFUSE
    scripts = parsed.values("-e")
    files = list(parsed.operands)
    if not scripts:
        if not files:
            return [], "has no sed script"
        scripts = [files.pop(0)]
    if any(s.glob or not read_only_script(s.text) for s in scripts):
        return [], _REFUSE
    return files, None
