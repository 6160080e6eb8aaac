"""Render the command that was judged: same structure, every word its judged literal value.

The walker records where each word of a parsed text lies and what it judged it to be. The
rendering keeps the text between words — which must consist only of list, pipeline, group and
redirection operators (anything else, and nothing is rendered) — and replaces each word by
its exact fields, single-quoted where the shell could read anything into them. A shell running
the rendering has nothing left to expand: no glob, brace, ``$``, backtick or ``~``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from tree_sitter import Node

from ._words import Word, names

__all__ = ["Rendering", "Span", "quote", "render", "word_spans"]

_SAFE = re.compile(r"[A-Za-z0-9_@%+:,./-]+")
_RESERVED = names(
    "! case coproc do done elif else esac fi for function if in select then time until while "
    "{ } [[ ]]"
)
_TOKEN = re.compile(
    r"[ \t]+|[0-9]*(?:&>>|&>|>>|>&-|<&-|>&|<&|>\||>|<)|&&|\|\||\|&|;|\||&|\(|\)|\{|\}"
)
"""What may stand between words. Not ``<<<``: dash reads ``cat <<< x`` as a heredoc and the
file ``x``; such a command needs approval."""
_FD_NAME = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_AWAITS_TARGET = re.compile(r"[0-9]*(?:&>>|&>|>>|>&|<&|>\||>|<)")
"""A redirection operator: the next thing must be its target word."""


@dataclass(frozen=True, slots=True)
class Span:
    """A word of the parsed text (``word``) or a fixed replacement (``text``) at a byte range."""

    start: int
    end: int
    word: Word | None = None
    text: str = ""
    command: int = -1
    """Index of the simple command the word belongs to (its reparsed scripts are rendered)."""
    inner: tuple[tuple[int, str], ...] = ()
    """Keys of other parsed texts run here one after another (a loop judged by unrolling it):
    the span is rendered as ``{ FIRST ; SECOND ; }``."""


@dataclass(slots=True)
class Rendering:
    """One parsed text and the spans its walk recorded."""

    data: bytes
    spans: list[Span]


def quote(text: str) -> str:
    """``text`` as one shell word that no shell expands."""
    if _SAFE.fullmatch(text) and text not in _RESERVED:
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def _gap(text: str) -> list[str] | None:
    """The operators between two words; None when anything else lies there, or when a
    redirection operator is not directly followed by its target word (``<<<``, ``> >``)."""
    tokens: list[str] = []
    index = 0
    while index < len(text):
        match = _TOKEN.match(text, index)
        if match is None:
            return None
        token = match.group()
        if not token.isspace():
            if tokens and _AWAITS_TARGET.fullmatch(tokens[-1]):
                return None
            tokens.append(token)
        index = match.end()
    return tokens


Nested = Callable[[int, str], "str | None | bool"]
"""For (command index, argument text): the rendering of that argument run as a script, False
when it is no script, None when the script cannot be rendered."""
Part = Callable[[tuple[int, str]], "str | None"]
"""For the key of another parsed text: its rendering (None when it cannot be rendered)."""


def _word(span: Span, nested: Nested, part: Part) -> list[str] | None:
    if span.inner:
        parts = [part(key) for key in span.inner]
        if any(text is None or not text for text in parts):
            return None
        return ["{", " ; ".join(str(text) for text in parts), ";", "}"]
    if span.word is None:
        return [span.text]
    if span.word.exact is None:
        return None
    out: list[str] = []
    for arg in span.word.exact:
        script = nested(span.command, arg.text)
        if script is None:
            return None
        out.append(quote(arg.text if script is False else str(script)))
    return out


def render(rendering: Rendering, nested: Nested, part: Part) -> str | None:
    """The judged command as text, or None when some part of it cannot be rendered."""
    spans: Sequence[Span] = sorted(rendering.spans, key=lambda s: (s.start, s.end))
    data = rendering.data
    out: list[str] = []
    position = 0
    for span in spans:
        if span.start < position:
            return None  # overlapping words: a construct the renderer does not know
        named_fd = span.word is not None and _FD_NAME.fullmatch(span.word.raw)
        if named_fd and data[span.end : span.end + 1] in (b"<", b">"):
            return None  # `{fd}<file`: bash allocates a descriptor, tree-sitter a word
        tokens = _gap(data[position : span.start].decode("utf-8", "surrogateescape"))
        words = _word(span, nested, part)
        if tokens is None or words is None:
            return None
        out.extend(tokens)
        out.extend(words)
        position = span.end
    tail = _gap(data[position:].decode("utf-8", "surrogateescape"))
    if tail is None or (tail and _AWAITS_TARGET.fullmatch(tail[-1])):
        return None
    out.extend(tail)
    return " ".join(part for part in out if part)


def word_spans(
    groups: Sequence[Sequence[Node]],
    words: Sequence[Word],
    index: int,
    destination: str | None,
    *,
    guard: bool = False,
) -> list[Span]:
    """The spans of one simple command's words; ``cd …`` becomes ``cd -P -- '<physical>'``
    (``destination`` is where the walker tracked it to; it must be an existing directory),
    followed by ``|| exit 1`` when ``guard``: the walker judges what follows in that directory,
    so a ``cd`` that fails at run time (no search permission in the sandbox) stops the command
    instead of running the rest in the old directory."""
    spans = [
        Span(group[0].start_byte, group[-1].end_byte, word, "", index)
        for group, word in zip(groups, words, strict=True)
        if group
    ]
    first = words[0].exact if words else None
    if spans and first is not None and len(first) == 1 and first[0].text == "time" == words[0].raw:
        spans[0] = replace(spans[0], word=None, text="time")  # the keyword, as written (not quoted)
    if not spans or first is None or len(first) != 1 or first[0].text != "cd":
        return spans
    if destination is None or not os.path.isdir(destination) or not os.access(destination, os.X_OK):
        return [replace(spans[0], word=Word("cd", None, ()))]  # cannot be rendered
    text = "cd -P -- " + quote(destination) + (" || exit 1" if guard else "")
    head = replace(spans[0], word=None, text=text)
    return [head, *(replace(span, word=None, text="") for span in spans[1:])]
