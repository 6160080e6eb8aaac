"""Redirections: file targets, fd duplications, here-strings and heredocs (with what follows).

tree-sitter-bash hangs the rest of the line after a heredoc operator (``cat <<EOF | sh``) on the
heredoc node; those trailing nodes are handed back to the walker as ``tails``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from tree_sitter import Node

from ._model import Redirect
from ._render import Span
from ._syntax import node_text
from ._words import Word

if TYPE_CHECKING:
    from ._model import Ctx
    from ._wordnodes import WordBuilder

__all__ = ["RedirectParts", "build_redirect"]

_OPERATORS = ("&>>", "&>", ">>", ">&-", "<&-", ">&", "<&", ">|", ">", "<")


@dataclass(slots=True)
class RedirectParts:
    """What a command's redirects add: the redirects, stray word groups, trailing commands."""

    groups: list[list[Node]]
    redirects: list[Redirect] = field(default_factory=list)
    tails: list[Node] = field(default_factory=list)


def build_redirect(words: WordBuilder, node: Node, ctx: Ctx, parts: RedirectParts) -> None:
    """Add the redirect ``node`` (and whatever a heredoc line carries after it) to ``parts``."""

    if node.has_error:
        words.walker.out.note("hard", "a syntax error", node_text(node))
    if node.type == "herestring_redirect":
        words.walker.out.note("structural", "a here-string `<<<`", node_text(node))
        value = list(node.named_children)
        word = words.build(value[:1], ctx) if value else Word("", (), ())
        if value:
            words.walker.spans.append(Span(value[0].start_byte, value[0].end_byte, word))
        body = " ".join(a.text for a in word.guess)
        parts.redirects.append(Redirect(None, word, "herestring", body))
        return
    if node.type == "heredoc_redirect":
        _heredoc(words, node, ctx, parts)
        return
    descriptor = node.child_by_field_name("descriptor")
    operator = next((node_text(c) for c in node.children if node_text(c) in _OPERATORS), ">")
    destinations = node.children_by_field_name("destination")
    between = "".join(node_text(c) for c in node.children if c not in (*destinations, descriptor))
    if between.replace(" ", "").startswith("<>"):
        operator = "<>"  # read-write: opens (and creates) the file for writing; an ERROR node
    grouped: list[list[Node]] = []
    for dest in destinations:
        if grouped and dest.start_byte == grouped[-1][-1].end_byte:
            grouped[-1].append(dest)
        else:
            grouped.append([dest])
    target = words.build(grouped[0], ctx) if grouped else None
    if target is not None:
        start, end = grouped[0][0].start_byte, grouped[0][-1].end_byte
        words.walker.spans.append(Span(start, end, target))
    parts.groups.extend(grouped[1:])
    kind: Literal["write", "read", "dup"]
    target_text = target.raw if target is not None else "-"
    if operator in (">&-", "<&-") or (
        operator in (">&", "<&") and (target_text.isdigit() or target_text == "-")
    ):
        kind = "dup"
    elif operator in ("<", "<&"):
        kind = "read"
    else:
        kind = "write"
    fd = node_text(descriptor) if descriptor is not None else None
    parts.redirects.append(Redirect(fd, target, kind))


def _heredoc(words: WordBuilder, node: Node, ctx: Ctx, parts: RedirectParts) -> None:
    words.walker.out.note("structural", "a heredoc `<<`", node_text(node).split("\n", 1)[0])
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    quoted_delimiter = any(ch in node_text(start) for ch in "'\"\\")
    body_node = next((c for c in node.children if c.type == "heredoc_body"), None)
    body = node_text(body_node)
    if any(c.type == "<<-" for c in node.children):
        body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
    if body_node is not None and not quoted_delimiter:
        words.visit_substitutions(body_node, ctx)
    parts.redirects.append(Redirect(None, None, "heredoc", body))
    for child in node.named_children:
        if child.type in ("heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content"):
            continue
        if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            build_redirect(words, child, ctx, parts)
        else:
            parts.tails.append(child)
