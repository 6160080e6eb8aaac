"""Turn tree-sitter-bash word, redirect and assignment nodes into ``Word``/``Redirect`` values.

De-quoting follows bash: backslashes, single quotes, double quotes, ``$'…'`` (ANSI-C) and
``$"…"``; ``~``, ``$HOME`` and ``$PWD`` are known exactly; other expansions are unknown for the
exact view and guessed (tracked variables, ``${x:-default}``, ``$IFS`` splitting) for deny checks.
Substitutions met inside words are visited, so the commands they run are extracted too.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tree_sitter import Node

from ._fields import exact_fields
from ._wordacc import Acc, guess_fields, stray_dollars, tilde
from ._words import (
    EXPANDED,
    QUOTED,
    UNKNOWN,
    Word,
    chars_text,
    decode_ansi_c,
    lit,
    unescape_double,
    unescape_unquoted,
)

if TYPE_CHECKING:
    from ._model import Ctx
    from ._parse import Walker

__all__ = ["WordBuilder"]

DEFAULT_IFS = " \t\n"
WORD_STEPS = 32
"""Steps one shell word costs to build (its characters are counted as nodes and expansions)."""
MAX_VALUE_CHARS = 4_096
"""A tracked variable value longer than this becomes unknown (``x=$x$x`` cannot grow it)."""
_EXACT_VARS = ("HOME", "PWD")
_DEFAULTING = (":-", "-", ":=", "=")


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


class WordBuilder:
    """Evaluate word-level nodes in the walker's current scope."""

    def __init__(self, walker: Walker, home: str | None) -> None:
        self.walker = walker
        self.home = home

    # -- words ------------------------------------------------------------------------------
    def build(self, nodes: list[Node], ctx: Ctx) -> Word:
        self.walker.out.budget.spend(WORD_STEPS)
        acc = Acc()
        data = self.walker.data
        for position, node in enumerate(nodes):
            following = nodes[position + 1] if position + 1 < len(nodes) else None
            first = following
            if first is not None and first.type == "concatenation" and first.child_count:
                first = first.children[0]
            if node.type == "$" and first is not None and first.type == "string":
                continue  # $"…" is a locale-translated string
            if position and node.start_byte > nodes[position - 1].end_byte:
                gap = data[nodes[position - 1].end_byte : node.start_byte]
                acc.add(unescape_unquoted(gap.decode("utf-8", "replace")))
            self.node(node, ctx, acc, quoted=False)
        raw = "".join(_text(node) for node in nodes)
        stray_dollars(acc)
        tilde(raw, acc, ctx)
        ifs = ctx.scope.vars.get("IFS")
        guess_ifs = ifs if isinstance(ifs, str) else DEFAULT_IFS
        subst = tuple(acc.subst)
        blank = " " in raw or "\t" in raw or "\n" in raw
        if blank and acc.exact is not None and any(c in " \t\n" and not f for c, f in acc.exact):
            # An unquoted blank inside one word node: tree-sitter-bash misread the boundaries.
            acc.unknown("text tree-sitter-bash misreads (a blank inside one word)", [])
        exact = None
        dynamic = acc.dynamic
        if acc.exact is not None:
            found = exact_fields(
                acc.exact,
                DEFAULT_IFS,
                subst,
                acc.procsub,
                cwd=ctx.scope.cwd,
                home=self.home,
                raw=raw,
                listable=self.walker.out.listable,
                spend=self.walker.out.budget.spend,
            )
            exact, dynamic = found.args, found.dynamic
            if exact is not None and any(arg.globbed for arg in exact):
                self.walker.out.budget.spend(sum(len(arg.text) for arg in exact))
        guess = guess_fields(acc.guess, guess_ifs, subst, acc.procsub) or ()
        return Word(raw, exact, guess, subst, acc.procsub, None if exact is not None else dynamic)

    def node(self, node: Node, ctx: Ctx, acc: Acc, *, quoted: bool) -> None:
        self.walker.out.budget.tick()
        kind = node.type
        text = _text(node)
        flag = QUOTED if quoted else 0
        if kind == "word":
            acc.add(lit(text, QUOTED) if quoted else unescape_unquoted(text))
        elif kind == "$" and text != "$":
            acc.unknown(f"`{text}`, whose value is only known at run time")  # `$$`: the PID
        elif kind == "brace_expression" and not quoted:
            acc.add(unescape_unquoted(text))  # tree-sitter may fold `\*{` into its `{`
        elif kind in ("number", "brace_expression", "$", "file_descriptor"):
            acc.add(lit(text, flag))
        elif kind == "raw_string":
            acc.add(lit(text[1:-1], QUOTED))
        elif kind == "ansi_c_string":
            body = text[2:-1]
            decoded = decode_ansi_c(body)
            if (len(body) - len(body.rstrip("\\"))) % 2 or "\0" in decoded:
                # `$'\''`: tree-sitter ends the string at the escaped quote; bash cuts at a NUL.
                acc.unknown("an ANSI-C string tree-sitter-bash misreads or bash cuts short")
            else:
                acc.add(lit(decoded, QUOTED))
        elif kind == "variable_name":
            acc.add(lit(text, flag) if quoted else unescape_unquoted(text))
        elif kind == "variable_assignment":
            self._sequence(node, ctx, acc, quoted=quoted, inner=False)
        elif kind in ("string", "translated_string"):
            self._sequence(node, ctx, acc, quoted=True, inner=True)
        elif kind == "concatenation":
            self._sequence(node, ctx, acc, quoted=quoted, inner=False)
        elif kind == "string_content":
            acc.add(unescape_double(text))
        elif kind == "simple_expansion" and text[1:2].isspace():
            # tree-sitter reads `$ x` as one expansion (bash: a literal `$`, then a new word):
            # the word boundaries are not known, so the exact view gives up.
            acc.unknown("a `$` before a blank, which tree-sitter-bash misreads", lit("$", flag))
        elif kind == "simple_expansion":
            self._variable(text[1:], ctx, acc, quoted)
        elif kind == "expansion":
            self._expansion(node, ctx, acc, quoted)
        elif kind in ("command_substitution", "process_substitution"):
            ids = self.substitution(node, ctx)
            acc.subst.extend(ids)
            acc.procsub = acc.procsub or kind == "process_substitution"
            output = self._static_output(ids) if kind == "command_substitution" else None
            if output is not None:
                self.walker.out.budget.spend(len(output))
            guess = lit(output, EXPANDED | flag) if output is not None else None
            acc.unknown(f"`{text[:40]}`, whose value is only known at run time", guess)
        elif kind == "``":
            self.walker.out.note("structural", "a command substitution (backticks)", text)
        elif not node.is_named:
            acc.add(lit(text, flag) if quoted else unescape_unquoted(text))
        elif kind == "extglob_pattern":
            acc.unknown("an extended glob pattern", lit(text))
        else:
            self._nested(node, ctx, acc)
            acc.unknown(f"`{text[:40]}`, whose value is only known at run time")

    @staticmethod
    def _gap(text: str, acc: Acc, *, quoted: bool) -> None:
        if quoted:
            acc.add(unescape_double(text))
            return
        # An unquoted blank inside a tree-sitter "concatenation" (`a ``b`) still separates
        # words for bash: mark it as a field separator.
        acc.add(
            [
                (ch, EXPANDED) if ch in " \t" and not f else (ch, f)
                for ch, f in unescape_unquoted(text)
            ]
        )

    def _static_output(self, ids: tuple[int, ...]) -> str | None:
        """What ``$(echo …)``, ``$(printf word)`` or ``$(pwd)`` prints (guess view only)."""
        if len(ids) != 1:
            return None
        command = self.walker.out.commands[ids[0]]
        argv = [arg.text for word in command.words for arg in word.guess]
        if command.redirects or not argv or any(UNKNOWN in text for text in argv):
            return None
        if argv[0] == "pwd":
            return command.cwd
        if argv[0] == "echo":
            while len(argv) > 1 and argv[1] in ("-n", "-e", "-E"):
                argv.pop(1)
            return " ".join(argv[1:])
        if argv[0] == "printf" and len(argv) == 2 and not any(c in argv[1] for c in "%\\"):
            return argv[1]
        return None

    def _nested(self, node: Node, ctx: Ctx, acc: Acc) -> None:
        """Visit substitutions anywhere below ``node`` (they run even if the value is unknown)."""
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                acc.subst.extend(self.substitution(child, ctx))
            else:
                self._nested(child, ctx, acc)

    def _sequence(self, node: Node, ctx: Ctx, acc: Acc, *, quoted: bool, inner: bool) -> None:
        children = node.children
        cursor = node.start_byte + (1 if inner else 0)
        source = node.text or b""
        for position, child in enumerate(children):
            closing = inner and child.type == '"' and position == len(children) - 1
            # tree-sitter may fold text into a token (`a" "`: the closing quote is ` "`) or
            # leave it between children (`"*"- $""`): whatever lies between is text too.
            start = child.end_byte - 1 if closing else child.start_byte
            if start > cursor:
                gap = source[cursor - node.start_byte : start - node.start_byte]
                self._gap(gap.decode("utf-8", "replace"), acc, quoted=quoted)
            if inner and child.type == '"' and position in (0, len(children) - 1):
                cursor = max(cursor, child.end_byte)
                continue
            if inner and position == 0 and child.type == "$":
                cursor = child.end_byte
                continue
            following = children[position + 1] if position + 1 < len(children) else None
            if (
                child.type == "$"
                and _text(child) == "$"
                and following is not None
                and following.type == "string"
                and following.start_byte == child.end_byte
            ):
                cursor = child.end_byte
                continue  # `$"…"` inside a word: a locale-translated string
            self.node(child, ctx, acc, quoted=quoted)
            cursor = child.end_byte

    def _variable(self, name: str, ctx: Ctx, acc: Acc, quoted: bool) -> None:
        flags = EXPANDED | (QUOTED if quoted else 0)
        value = ctx.scope.vars.get(name)
        if value is not None:
            self.walker.out.budget.spend(len(value))
        if name in _EXACT_VARS and value is not None:
            acc.add(lit(value, flags))
        elif value is not None:
            acc.unknown(f"`${name}`, whose value is only known at run time", lit(value, flags))
        else:
            acc.unknown(f"`${name}`, whose value is only known at run time", [(UNKNOWN, flags)])

    def _expansion(self, node: Node, ctx: Ctx, acc: Acc, quoted: bool) -> None:
        children = node.named_children
        names = [c for c in children if c.type in ("variable_name", "special_variable_name")]
        operators = [
            node.children[i]
            for i in range(node.child_count)
            if node.field_name_for_child(i) == "operator"
        ]
        if not names or len(names) != 1 or any(c.type == "subscript" for c in children):
            self._nested(node, ctx, acc)
            acc.unknown(f"`{_text(node)[:40]}`, whose value is only known at run time")
            return
        name = _text(names[0])
        if not operators:
            self._variable(name, ctx, acc, quoted)
            return
        operator = _text(operators[0])
        default = Acc()
        after = [c for c in children if c.start_byte >= operators[0].end_byte]
        for child in after:
            self.node(child, ctx, default, quoted=quoted)
        acc.subst.extend(default.subst)
        value = ctx.scope.vars.get(name)
        if operator in (":?", "?") and names[0].start_byte < operators[0].start_byte:
            self._variable(name, ctx, acc, quoted)
            return
        if operator in _DEFAULTING and names[0].start_byte < operators[0].start_byte:
            flags = EXPANDED | (QUOTED if quoted else 0)
            guess = lit(value, flags) if value is not None else default.guess
            acc.unknown(f"`{_text(node)[:40]}`, whose value is only known at run time", guess)
            return
        acc.unknown(f"`{_text(node)[:40]}`, whose value is only known at run time")

    # -- substitutions, assignments, redirects ------------------------------------------------
    def substitution(self, node: Node, ctx: Ctx) -> tuple[int, ...]:
        out = self.walker.out
        text = _text(node)
        if node.type == "command_substitution":
            form = "backticks" if text.startswith("`") else "`$(…)`"
            out.note("structural", f"a command substitution ({form})", text)
            piped = False
        else:
            out.note("structural", f"a process substitution `{text[:2]}…)`", text)
            piped = text.startswith(">")
        inner = replace(
            ctx,
            scope=ctx.scope.copy(),
            piped=piped,
            upstream=range(0),
            pipeline=False,
            background=False,
        )
        before = len(out.commands)
        for child in node.named_children:
            self.walker.visit(child, inner)
        return tuple(range(before, len(out.commands)))

    def assignment(self, node: Node, ctx: Ctx) -> tuple[str | None, str | None]:
        """Evaluate ``NAME=value`` (visiting substitutions); return the name and guessed value."""
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        acc = Acc()
        if name_node is not None and name_node.type == "subscript":
            self._nested(name_node, ctx, acc)
            name = None
        else:
            name = _text(name_node) if name_node is not None else None
        if value_node is None:
            return name, ""
        if value_node.type == "array":
            self._nested(value_node, ctx, acc)
            return name, None
        self.node(value_node, ctx, acc, quoted=True)
        if len(acc.guess) > MAX_VALUE_CHARS:
            return name, None  # too large to track: its uses become unknown (never allowed)
        return name, chars_text(acc.guess)

    def visit_substitutions(self, node: Node, ctx: Ctx) -> None:
        """Run the walker over substitutions below ``node`` (a heredoc body, say)."""
        self._nested(node, ctx, Acc())
