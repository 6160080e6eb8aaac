"""Small facts about tree-sitter-bash nodes that the walker needs (and where they lie)."""

from __future__ import annotations

import os
import re

from tree_sitter import Node

from ._model import Scope
from ._words import UNKNOWN, Word

__all__ = [
    "CONTROL",
    "REDIRECTS",
    "cd_destination",
    "clip",
    "exit_follows",
    "flatten_lists",
    "followed_by_amp",
    "key",
    "loose_word",
    "node_text",
    "text_with",
    "track_cd",
    "valid_assignment",
]

CONTROL = {
    "if_statement": "`if` statement",
    "while_statement": "`while`/`until` loop",
    "for_statement": "`for` loop",
    "c_style_for_statement": "`for ((…))` loop",
    "case_statement": "`case` statement",
    "test_command": "`[[ … ]]` test",
    "negated_command": "`!` negation",
}
REDIRECTS = ("file_redirect", "heredoc_redirect", "herestring_redirect")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPERATORS = frozenset({";", ";;", "&", "&&", "|", "||", "|&", "(", ")", "\n", "`", "$(", "<", ">"})
_WORDISH = frozenset(
    {
        "word",
        "concatenation",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "number",
        "command_name",
        "{",
        "}",
    }
)


def clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def valid_assignment(node: Node) -> bool:
    """bash only assigns to a plain name (or ``name[…]``); ``*x=`` is an ordinary word."""
    target = node.child_by_field_name("name")
    return (
        target is None
        or target.type != "variable_name"
        or bool(_IDENTIFIER.match(node_text(target)))
    )


def loose_word(children: list[Node], index: int) -> bool:
    """A word-like node, or punctuation glued to one (``[a``), inside an ERROR region."""
    child = children[index]
    if child.type in _WORDISH:
        return True
    if child.is_named or child.type in _OPERATORS:
        return False
    before = children[index - 1] if index > 0 else None
    after = children[index + 1] if index + 1 < len(children) else None
    return (
        before is not None and before.end_byte == child.start_byte and before.type in _WORDISH
    ) or (after is not None and after.start_byte == child.end_byte and after.type in _WORDISH)


def flatten_lists(node: Node) -> list[Node]:
    """``a && b || c`` nests lists to the left; walk them as one flat sequence (no recursion)."""
    flat: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "list":
            stack.extend(reversed(current.children))
        else:
            flat.append(current)
    return flat


def key(node: Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def followed_by_amp(children: list[Node], position: int) -> bool:
    for index in range(position + 1, len(children)):
        later = children[index]
        if later.is_named:
            return False
        if later.type == "&":
            return True
    return False


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def text_with(node: Node | None, redirects: list[Node]) -> str:
    parts = [node_text(node)] if node is not None else []
    parts.extend(node_text(r).split("\n", 1)[0] for r in redirects if r.parent != node)
    return " ".join(part for part in parts if part)


def _canonical(path: str) -> str | None:
    """bash's logical ``cd`` path: ``..`` removed textually, each directory before it checked."""
    current = ""
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not os.path.isdir(current or "/"):
                return None
            current = os.path.dirname(current)
        else:
            current = f"{current}/{part}"
    current = current or "/"
    return current if os.path.isdir(current) else None


def cd_destination(args: list[str], cwd: str | None, home: str | None) -> str | None:
    """Where ``cd ARGS`` run in ``cwd`` lands, physically: ``..`` removed textually first
    (bash's logical default) unless ``-P``, the physical path when that fails; None when it
    cannot be known. A ``cd`` that fails returns the path it tried (no directory)."""
    physical = "-P" in args
    operands = [text for text in args if not text.startswith("-")]
    target = operands[0] if operands else home
    if target is None or UNKNOWN in target or (cwd is None and not target.startswith("/")):
        return None
    joined = os.path.join(cwd or "/", target)
    logical = None if physical else _canonical(joined)
    if logical is not None:
        return os.path.realpath(logical)
    return os.path.realpath(joined) if os.path.isdir(joined) else joined


_MOVES = frozenset(("cd", "pushd", "popd"))
_PREFIXES = frozenset(("command", "builtin", "exec", "time"))


def _timed_move(words: tuple[Word, ...]) -> bool:
    """``time [-p] [--] [!] cd …`` (the keyword runs the rest in this shell): a move, or a
    wrapper that may hide one, after ``time``'s own words."""
    for word in words[1:]:
        texts = [a.text for a in word.guess]
        if texts and (texts[0].startswith("-") or texts[0] == "!"):
            continue
        return not texts or os.path.basename(texts[0]) in _MOVES | _PREFIXES
    return False


def track_cd(words: tuple[Word, ...], scope: Scope) -> None:
    if not words or not words[0].guess:
        return
    name = os.path.basename(words[0].guess[0].text)
    if name == "time":
        if _timed_move(words):
            scope.cwd = None  # `time cd d` moves this shell; its landing is not followed
            scope.vars["PWD"] = None
        return
    if name in ("command", "builtin"):
        later = [a.text for w in words[1:3] for a in w.guess]
        if any(text in ("cd", "pushd", "popd") for text in later):
            scope.cwd = None  # `command cd ..` moves too; its landing is not followed
        return
    if name == "popd":
        scope.cwd = None
    if name not in ("cd", "pushd"):
        return
    args = [a.text for w in words[1:] for a in w.guess]
    if "-" in args:
        scope.cwd = None
        return
    scope.cwd = cd_destination(args, scope.cwd, scope.vars.get("HOME"))
    scope.vars["PWD"] = None  # logical in bash, physical in the rendering: not known exactly


def exit_follows(children: list[Node], position: int) -> bool:
    """``children[position]`` (or the operator there) is followed by ``|| exit …``."""
    if children[position].is_named:
        position += 1
    if position + 1 >= len(children) or children[position].type != "||":
        return False
    after = children[position + 1]
    name = after.child_by_field_name("name") if after.type == "command" else None
    return name is not None and node_text(name) == "exit"
