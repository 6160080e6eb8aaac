"""Schema patterns in linear time: RE2 (``google-re2``) compiles and matches every one.

The dialect Prism enforces is RE2's, which matches ECMA-262 (what JSON Schema names) in the
common cases: ``$`` is the end of the text only, ``\\d``/``\\w`` are ASCII. Constructs no
linear-time engine can run (backreferences, lookaround) are refused as schema errors, never
silently dropped. RE2's own error log (C++ stderr) is switched off per pattern.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, Final

import re2  # type: ignore[import-untyped]
from re2 import _re2

__all__ = [
    "REGEX_MAX_MEM",
    "PatternInputRefused",
    "PatternInputTooLong",
    "PatternRefused",
    "Re2Pattern",
    "UnassignedCodePoint",
    "compile_pattern",
    "refuse_unassigned_names",
]

REGEX_MAX_MEM: Final = 1 << 20
"""Memory RE2 may use per pattern (program and DFA cache); past it, matching stays linear
(RE2 falls back from the DFA) and a larger program is refused at compile time."""

_OPTIONS: Final = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = REGEX_MAX_MEM
_UNANCHORED: Final = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START: Final = _re2.RE2.Anchor.ANCHOR_START


class PatternInputRefused(Exception):
    """A string a pattern cannot be matched against exactly: the whole value is invalid, even
    under ``not`` (raised, never read as "no match")."""


class PatternInputTooLong(PatternInputRefused):
    """A string longer than the pattern input bound was about to be matched."""


class UnassignedCodePoint(PatternInputRefused):
    """A string holding a code point the oldest Unicode tables in use do not assign met a
    pattern whose meaning depends on those tables (``\\p{..}``/``\\P{..}``)."""


class PatternRefused(ValueError):
    """RE2 cannot express the pattern (or it is malformed); ``str()`` says why."""


class Re2Pattern:
    """A compiled pattern with the one method generated validators call: ``search(text)``."""

    __slots__ = ("match", "pattern", "search", "size", "tables")

    def __init__(
        self,
        pattern: str,
        regexp: Any,
        max_input: int | None = None,
        *,
        tables: bool = False,
        where: str = "",
    ) -> None:
        self.pattern = pattern
        self.tables = tables
        """Whether the pattern reads Unicode properties (see ``_refuse_unassigned``)."""
        self.size: int = regexp.ProgramSize()
        """RE2's program size, counted repetitions expanded: what one character costs when
        RE2 has to leave its DFA (see ``_scan``)."""
        match = regexp.Match
        longest = (1 << 62) if max_input is None else max_input

        def search(text: str) -> bool:
            if len(text) > longest:  # raised, never "no match": under `not` that would accept
                raise PatternInputTooLong(
                    f"a string of {len(text):,} characters is longer than "
                    f"max_pattern_input_length={longest} and is not matched against a pattern"
                )
            data = text.encode("utf-8", "surrogatepass")
            if tables:
                _refuse_unassigned(data, f"the pattern {pattern[:80]!r}{where}")
            return bool(match(_UNANCHORED, data, 0, len(data))[0][0] >= 0)

        def anchored(text: str) -> bool:
            data = text.encode("utf-8", "surrogatepass")
            return bool(match(_ANCHOR_START, data, 0, len(data))[0][0] >= 0)

        self.search = search
        self.match = anchored


def compile_pattern(
    pattern: str, max_input: int | None = None, *, tables: bool = False, where: str = ""
) -> Re2Pattern:
    """Compile ``pattern`` with RE2 or raise ``PatternRefused`` naming the problem; ``search``
    raises ``PatternInputTooLong`` for a string longer than ``max_input`` and, when ``tables``
    (the pattern reads Unicode properties), ``UnassignedCodePoint`` (see ``_refuse_unassigned``).
    """
    try:
        compiled = re2.compile(pattern, options=_OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise PatternRefused(
            f"{detail} (patterns run on RE2 in linear time: no backreferences or lookaround)"
        ) from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise PatternRefused(str(exc)) from None
    if tables:
        _unassigned()  # built once, when compiling: never on a first validation's path
    return Re2Pattern(pattern, compiled._regexp, max_input, tables=tables, where=where)


_ASSIGNED_IN_RE2: Final = r"[^\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\p{C}]"
"""What RE2's tables (Unicode 15.1 in google-re2 1.1) leave unassigned: in no category."""


@functools.cache
def _unassigned() -> Any:
    """RE2 matching any code point unassigned in Python's ``unicodedata`` (Unicode 14.0 on
    Python 3.11) or in RE2's own tables: the oldest tables a pattern is read with here."""
    ranges = [r"\x{40000}-\x{dffff}"]  # planes 4-13: no Unicode version assigns any yet
    for first, last in ((0, 0x3FFFF), (0xE0000, 0x10FFFF)):
        # Two letters per code point; "Cn" can only start at an even offset (a category's
        # second letter is lower case), so each run is a range of unassigned code points.
        categories = "".join(map(unicodedata.category, map(chr, range(first, last + 1))))
        ranges.extend(
            f"\\x{{{first + run.start() // 2:x}}}-\\x{{{first + run.end() // 2 - 1:x}}}"
            for run in re.finditer("(?:Cn)+", categories)
        )
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 8 * REGEX_MAX_MEM
    return re2.compile(f"{_ASSIGNED_IN_RE2}|[{''.join(ranges)}]", options=options)._regexp


def _refuse_unassigned(data: bytes, what: str) -> None:
    """ECMA-262 reads ``\\p{..}`` with current Unicode (V8: 17.0); RE2, Rust's ``regex`` and
    Python's ``unicodedata`` lag behind. A code point one of them does not assign may be a
    letter to ECMA and not to RE2 (U+1C89, Unicode 16.0): the value is refused, not guessed."""
    found = _unassigned().Match(_UNANCHORED, data, 0, len(data))[0]
    if found[0] >= 0:
        point = ord(data[found[0] : found[1]].decode("utf-8", "surrogatepass"))
        raise UnassignedCodePoint(
            f"a string holds U+{point:04X}, a code point Unicode {unicodedata.unidata_version} "
            f"(the oldest tables Prism reads patterns with) does not assign; {what} "
            "reads Unicode properties (\\p{..}), which current ECMA-262 "
            "may read otherwise for it, so the value is refused rather than guessed"
        )


def refuse_unassigned_names(value: object) -> None:
    """``UnassignedCodePoint`` for the first property name in ``value`` (plain JSON, any depth)
    holding a code point the oldest tables lack: what jsonschema-rs's native
    ``patternProperties`` matching cannot be trusted to read as ECMA-262 does."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for name, child in item.items():
                _refuse_unassigned(
                    str(name).encode("utf-8", "surrogatepass"), "a patternProperties key"
                )  # jsonschema-rs does not say which key met the name
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
