"""``for NAME in WORDS; do BODY; done`` judged by unrolling: one copy of the body per value.

The list must be known exactly (globs expanded against the working directory, the pattern itself
kept too, at most ``MAX_LOOP_VALUES`` values), and the body may use the variable only as a whole
quoted argument (``"$f"`` or ``"${f}"``): each copy has that word replaced by the value, single
quoted. Any other mention of the name (unquoted, inside a longer string, ``read f``, ``f=…``), a
``cd``, or a loop inside a pipeline or background job is not unrolled: the loop then stays
control flow that needs approval.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ._model import Ctx
from ._operands import expand
from ._syntax import node_text

if TYPE_CHECKING:
    from ._parse import Walker

__all__ = ["MAX_LOOP_VALUES", "loop_bodies"]

MAX_LOOP_VALUES = 64
_MOVES = re.compile(r"(?<![\w-])(cd|pushd|popd)(?![\w-])")


def _subtree(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _values(walker: Walker, node: Node, ctx: Ctx) -> list[str] | None:
    values = node.children_by_field_name("value")
    if not values or not any(child.type == "in" for child in node.children):
        return None
    found: list[str] = []
    for value in values:
        word = walker.words.build([value], ctx)
        if word.exact is None:
            return None
        for arg in word.exact:
            matches = expand(arg, ctx.scope.cwd)
            if matches is None:
                return None
            found.extend(matches)
            if len(found) > MAX_LOOP_VALUES:
                return None
    return found or None


def _uses(body: Node, name: str) -> list[tuple[int, int]] | None:
    """Byte spans of every ``"$name"``/``"${name}"`` argument; None on any other use."""
    spans: list[tuple[int, int]] = []
    for node in _subtree(body):
        if node.type not in ("simple_expansion", "expansion"):
            continue
        names = [c for c in node.named_children if c.type == "variable_name"]
        if not names or node_text(names[0]) != name:
            continue
        string = node.parent
        if (
            string is None
            or string.type != "string"
            or node_text(string) not in (f'"${name}"', f'"${{{name}}}"')
            or string.parent is None
            or string.parent.type != "command"
        ):
            return None
        spans.append((string.start_byte, string.end_byte))
    return sorted(spans)


def loop_bodies(walker: Walker, node: Node, ctx: Ctx) -> list[str] | None:
    """The body text once per loop value, or None when the loop cannot be unrolled."""
    variable = node.child_by_field_name("variable")
    body = node.child_by_field_name("body")
    if variable is None or body is None or ctx.piped or ctx.pipeline or ctx.background:
        return None
    inner = [child for child in body.named_children if child.type != "comment"]
    spans = _uses(body, node_text(variable)) if inner else None
    if spans is None or ctx.scope.cwd is None:
        return None
    start, end = inner[0].start_byte, inner[-1].end_byte
    data = walker.data
    pieces: list[bytes] = []
    cursor = start
    for first, last in spans:
        pieces.append(data[cursor:first])
        cursor = last
    pieces.append(data[cursor:end])
    rest = [piece.decode("utf-8", "surrogatepass") for piece in pieces]
    name = re.escape(node_text(variable))
    if any(re.search(rf"(?<![\w]){name}(?![\w])", piece) or _MOVES.search(piece) for piece in rest):
        return None
    values = _values(walker, node, ctx)
    if values is None:
        return None
    return [shlex.quote(value).join(rest) for value in values]
