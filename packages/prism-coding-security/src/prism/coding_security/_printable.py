"""Text that is safe to show a person: invisible and control characters escaped visibly.

An approval prompt printed to a terminal must show what will run. Raw ESC/CSI sequences can
repaint the line (``\\x1b[2K\\r``), C1 controls act like ESC on some terminals, and bidi
overrides (U+202E) or zero-width characters make the shown text differ from the bytes that run.
Every character of Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp and every space separator
other than U+0020 is written as an escape (``\\x1b``, ``\\u202e``, ``\\U000e0001``).
"""

from __future__ import annotations

import unicodedata

__all__ = ["quoted", "visible"]

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _hidden(ch: str) -> bool:
    return ch != " " and unicodedata.category(ch) in _ESCAPED_CATEGORIES


def visible(text: str) -> str:
    """``text`` with every control, format, separator (but the plain space) and unassigned
    character escaped, and backslashes doubled so an escape cannot be forged."""
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text  # the common case, without a per-character walk
    return "".join("\\\\" if ch == "\\" else _escape(ch) if _hidden(ch) else ch for ch in text)


def quoted(text: str) -> str:
    """``visible(text)`` in double quotes (``"`` escaped): one unambiguous token for a prompt."""
    return '"' + visible(text).replace('"', '\\"') + '"'
