"""Schema patterns in linear time: RE2 (``google-re2``) compiles and matches every one.

The dialect Prism enforces is RE2's, which matches ECMA-262 (what JSON Schema names) in the
common cases: ``$`` is the end of the text only, ``\\d``/``\\w`` are ASCII. Constructs no
linear-time engine can run (backreferences, lookaround) are refused as schema errors, never
silently dropped. RE2's own error log (C++ stderr) is switched off per pattern.
"""

from __future__ import annotations

from typing import Any, Final

import re2  # type: ignore[import-untyped]
from re2 import _re2

__all__ = [
    "REGEX_MAX_MEM",
    "PatternInputTooLong",
    "PatternRefused",
    "Re2Pattern",
    "compile_pattern",
]

REGEX_MAX_MEM: Final = 1 << 20
"""Memory RE2 may use per pattern (program and DFA cache); past it, matching stays linear
(RE2 falls back from the DFA) and a larger program is refused at compile time."""

_OPTIONS: Final = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = REGEX_MAX_MEM
_UNANCHORED: Final = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START: Final = _re2.RE2.Anchor.ANCHOR_START


class PatternInputTooLong(Exception):
    """A string longer than the pattern input bound was about to be matched."""


class PatternRefused(ValueError):
    """RE2 cannot express the pattern (or it is malformed); ``str()`` says why."""


class Re2Pattern:
    """A compiled pattern with the one method generated validators call: ``search(text)``."""

    __slots__ = ("match", "pattern", "search", "size")

    def __init__(self, pattern: str, regexp: Any, max_input: int | None = None) -> None:
        self.pattern = pattern
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
            return bool(match(_UNANCHORED, data, 0, len(data))[0][0] >= 0)

        def anchored(text: str) -> bool:
            data = text.encode("utf-8", "surrogatepass")
            return bool(match(_ANCHOR_START, data, 0, len(data))[0][0] >= 0)

        self.search = search
        self.match = anchored


def compile_pattern(pattern: str, max_input: int | None = None) -> Re2Pattern:
    """Compile ``pattern`` with RE2 or raise ``PatternRefused`` naming the problem; ``search``
    raises ``PatternInputTooLong`` for a string longer than ``max_input``."""
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
    return Re2Pattern(pattern, compiled._regexp, max_input)
