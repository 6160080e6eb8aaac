"""Where tree-sitter-bash reads a command line differently from bash, and how to re-read it.

Found by differential testing against real bash (tests/test_command_bash_fidelity.py): a ``#``
mid-word is not a comment, an unescaped newline never sits inside a word, and error recovery can
swallow a separate command (``[;rm -rf /``). These repairs only ever add commands to check.
"""

from __future__ import annotations

from tree_sitter import Node

from ._words import UNKNOWN

__all__ = ["misread", "segments"]

_COMMENT_STARTERS = frozenset(bytes([c]) for c in b" \t\n;&|()<>")
MAX_SEGMENTS = 1000


def misread(root: Node, data: bytes) -> list[tuple[int, int, bytes]]:
    """(offset, length, replacement) where bash reads differently: a ``#`` taken for a comment
    start mid-word (bash: a word character), an unescaped newline inside a ``word`` node
    (bash: a separator), and an empty backtick pair (tree-sitter loses word boundaries around
    it; ``$()`` means the same to bash)."""
    found: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        start = node.start_byte
        if node.type == "``" and not node.is_named:
            found.append((start, 2, b"$()"))
        elif node.type == "comment":
            if start > 0 and data[start - 1 : start] not in _COMMENT_STARTERS:
                found.append((start, 1, UNKNOWN.encode()))
        elif node.type == "word":
            text = data[start : node.end_byte]
            for position in range(len(text)):
                if (
                    text[position : position + 1] == b"\n"
                    and text[position - 1 : position] != b"\\"
                ):
                    found.append((start + position, 1, b";"))
        else:
            stack.extend(node.children)
    return sorted(found)


def _backticks(text: str, start: int) -> int:
    """Index just past the backtick closing the one at ``start`` (quotes do not protect it)."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == "`":
            return index + 1
        index += 1
    return len(text)


def segments(text: str) -> list[str]:
    r"""Texts to read again when tree-sitter's error recovery failed: each top-level command
    (split at ``; & | newline`` outside quotes and parentheses) with backtick substitutions
    replaced by ``$()``, and the inside of every backtick substitution on its own (bash ends
    one at the next backtick whatever quotes it holds: ``\`'\`rm`` runs ``rm``)."""
    parts: list[str] = []
    inner: list[str] = []
    current: list[str] = []
    quote = ""
    depth = 0
    index = 0
    while index < len(text) and len(parts) + len(inner) < MAX_SEGMENTS:
        ch = text[index]
        if ch == "\\" and quote != "'":
            current.append(text[index : index + 2])
            index += 2
            continue
        if ch == "`" and quote != "'":
            end = _backticks(text, index)
            inner.append(text[index + 1 : end - 1])
            current.append("$()")
            index = end
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ";&|\n":
            parts.append("".join(current))
            current = []
            index += 1
            continue
        current.append(ch)
        index += 1
    parts.append("".join(current))
    return [part for part in parts + inner if part.strip()]
