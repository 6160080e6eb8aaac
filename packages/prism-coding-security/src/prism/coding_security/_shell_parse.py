"""Parse shell text with tree-sitter-bash into simple commands (DESIGN §11, command analysis).

The walker visits every node: lists, pipelines, substitutions, subshells, groups, functions,
control flow, heredocs and ERROR recovery nodes, so a command hidden anywhere is extracted. What
cannot be proven plain is recorded as a ``Note``; limits raise ``AnalysisLimit`` and the caller
keeps what was extracted so far (deny still applies, allow never does).
"""

from __future__ import annotations

import os

import attrs
import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from ._cmd_model import AnalysisLimit, Collector, Redirect, SimpleCommand
from ._cmd_wordnodes import WordBuilder
from ._cmd_words import Word

__all__ = ["LANGUAGE", "Ctx", "Scope", "Walker", "parse_into"]

LANGUAGE = Language(tree_sitter_bash.language())

MAX_PIPES = 1000
"""``|`` characters allowed in one parsed text (long pipelines parse in quadratic time)."""
MAX_NESTING = 120
"""Syntax-tree nesting the walker follows before giving up (keeps Python's stack bounded)."""

_CONTROL = {
    "if_statement": "`if` statement",
    "while_statement": "`while`/`until` loop",
    "for_statement": "`for` loop",
    "c_style_for_statement": "`for ((…))` loop",
    "case_statement": "`case` statement",
    "test_command": "`[[ … ]]` test",
    "negated_command": "`!` negation",
}
_REDIRECTS = ("file_redirect", "heredoc_redirect", "herestring_redirect")


class Scope:
    """Per-subshell state the walker tracks speculatively: working directory and variables."""

    __slots__ = ("cwd", "vars")

    def __init__(self, cwd: str | None, variables: dict[str, str | None]) -> None:
        self.cwd = cwd
        self.vars = variables

    def copy(self) -> Scope:
        return Scope(self.cwd, dict(self.vars))


@attrs.frozen
class Ctx:
    """Where a node sits: pipe input, upstream commands, background, enclosing function."""

    scope: Scope
    depth: int
    origin: str | None
    piped: bool = False
    upstream: range = range(0)
    pipeline: bool = False
    background: bool = False
    function: str | None = None
    nesting: int = 0


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Walker:
    """Visit a tree-sitter-bash tree and append ``SimpleCommand``s to the collector."""

    def __init__(self, collector: Collector, home: str | None) -> None:
        self.out = collector
        self.words = WordBuilder(self, home)
        self.pending: dict[tuple[int, int, str], list[Node]] = {}

    # -- statements -------------------------------------------------------------------------
    def visit(self, node: Node, ctx: Ctx) -> None:
        self.out.budget.tick()
        if ctx.nesting > MAX_NESTING:
            raise AnalysisLimit(f"syntax nested deeper than {MAX_NESTING} levels")
        ctx = attrs.evolve(ctx, nesting=ctx.nesting + 1)
        kind = node.type
        pending = self.pending.pop(_key(node), None)
        if pending is not None:
            if kind == "command":
                self.command(node, ctx, pending)
                return
            self.command(None, ctx, pending, text=_text(node))
        if node.is_error or node.is_missing:
            self.out.note("hard", "a syntax error", _text(node))
        if kind == "command":
            self.command(node, ctx, [])
        elif kind == "pipeline":
            self.pipeline(node, ctx)
        elif kind == "redirected_statement":
            self.redirected(node, ctx)
        elif kind in ("program", "list", "do_group", "else_clause", "elif_clause", "ERROR"):
            self.sequence(node, ctx)
        elif kind == "subshell":
            self.out.note("structural", "a subshell `( … )`", _text(node))
            self.sequence(node, attrs.evolve(ctx, scope=ctx.scope.copy()))
        elif kind == "compound_statement":
            self.compound(node, ctx)
        elif kind == "function_definition":
            self.function(node, ctx)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.assignment(node, ctx)
        elif kind == "declaration_command":
            self.out.note("hard", "a declaration that changes shell state", _text(node))
            self.assignment(node, ctx)
        elif kind == "unset_command":
            self.out.note("hard", "`unset`, which changes shell state", _text(node))
            for child in node.named_children:
                ctx.scope.vars[_text(child)] = None
        elif kind in ("command_substitution", "process_substitution"):
            self.words.substitution(node, ctx)
        elif kind == "comment":
            return
        else:
            self.other(node, ctx)

    def other(self, node: Node, ctx: Ctx) -> None:
        if node.type in _CONTROL:
            self.out.note("hard", f"control flow ({_CONTROL[node.type]})", _text(node))
        elif node.type not in ("heredoc_body", "case_item"):
            self.out.note("hard", f"an unsupported shell construct ({node.type})", _text(node))
        if node.type == "for_statement":
            variable = node.child_by_field_name("variable")
            if variable is not None:
                ctx.scope.vars[_text(variable)] = None
        for child in node.named_children:
            self.visit(child, ctx)

    def sequence(self, node: Node, ctx: Ctx) -> None:
        children = _flatten_lists(node) if node.type == "list" else node.children
        for position, child in enumerate(children):
            if not child.is_named:
                if child.type == "&":
                    self.out.note("structural", "a background job `&`", _text(node))
                if child.is_missing or child.type == "ERROR":
                    self.out.note("hard", "a syntax error", _text(node))
                continue
            background = ctx.background or _followed_by_amp(children, position)
            self.visit(child, attrs.evolve(ctx, background=background))

    def compound(self, node: Node, ctx: Ctx) -> None:
        if _text(node).startswith("(("):
            self.out.note("hard", "an arithmetic command `(( … ))`", _text(node))
            self.other_children(node, ctx)
            return
        self.out.note("structural", "a command group `{ …; }`", _text(node))
        self.sequence(node, ctx)

    def other_children(self, node: Node, ctx: Ctx) -> None:
        for child in node.named_children:
            self.visit(child, ctx)

    def function(self, node: Node, ctx: Ctx) -> None:
        name_node = node.child_by_field_name("name")
        name = _text(name_node) if name_node is not None else "?"
        self.out.note("hard", "a function definition", _text(node))
        self.out.functions.add(name)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, attrs.evolve(ctx, function=name, scope=ctx.scope.copy()))

    def assignment(self, node: Node, ctx: Ctx) -> None:
        if node.type == "variable_assignment":
            self.out.note("hard", "a variable assignment", _text(node))
            name, value = self.words.assignment(node, ctx)
            if name is not None:
                ctx.scope.vars[name] = value
            return
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child, ctx)
            elif child.type in ("command_substitution", "process_substitution"):
                self.words.substitution(child, ctx)
            else:
                self.words.build([child], ctx)

    def pipeline(self, node: Node, ctx: Ctx) -> None:
        stages = [child for child in node.named_children if child.type != "comment"]
        first = ctx.upstream.start if len(ctx.upstream) else len(self.out.commands)
        for position, stage in enumerate(stages):
            upstream = range(first, len(self.out.commands)) if position else ctx.upstream
            stage_ctx = attrs.evolve(
                ctx,
                scope=ctx.scope.copy(),
                piped=ctx.piped or position > 0,
                upstream=upstream,
                pipeline=True,
            )
            self.visit(stage, stage_ctx)

    def redirected(self, node: Node, ctx: Ctx) -> None:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c.type in _REDIRECTS]
        if body is not None and body.type == "command":
            self.command(body, ctx, redirects)
            return
        if body is not None and body.type in ("list", "pipeline"):
            # tree-sitter-bash hangs `a && b > f` on the list; bash redirects only `b`.
            last = body
            while last.type in ("list", "pipeline") and last.named_children:
                last = last.named_children[-1]
            self.pending.setdefault(_key(last), []).extend(redirects)
            self.visit(body, ctx)
            return
        # Redirects of a group, pipeline or bare `> file`: an empty carrier command holds them.
        self.command(None, ctx, redirects, text=_text(node))
        if body is not None:
            self.visit(body, ctx)

    # -- simple commands ----------------------------------------------------------------------
    def command(
        self, node: Node | None, ctx: Ctx, redirect_nodes: list[Node], text: str | None = None
    ) -> None:
        groups: list[list[Node]] = []
        assignments: list[str] = []
        own_redirects = list(redirect_nodes)
        children = node.children if node is not None else []
        for position, child in enumerate(children):
            field = node.field_name_for_child(position) if node is not None else None
            if child.type in _REDIRECTS:
                own_redirects.append(child)
            elif child.type in ("variable_assignment", "variable_assignments") and not groups:
                assignments.append(_text(child))
                self.words.assignment(child, ctx)
            elif field in ("name", "argument") or child.type == "command_name":
                target = child.named_children[0] if child.type == "command_name" else child
                if groups and target.start_byte == groups[-1][-1].end_byte:
                    groups[-1].append(target)
                else:
                    groups.append([target])
            elif child.is_named:
                self.visit(child, ctx)
        if assignments:
            where = _text(node) if node is not None else assignments[0]
            self.out.note("hard", f"an environment assignment (`{_clip(assignments[0])}`)", where)
        redirects: list[Redirect] = []
        tails: list[Node] = []
        for redirect in own_redirects:
            self.words.redirect(redirect, ctx, redirects, groups, tails)
        words = tuple(self.words.build(group, ctx) for group in groups)
        index = len(self.out.commands)
        self.out.add(
            SimpleCommand(
                index=index,
                text=_clip(text if text is not None else _text_with(node, own_redirects)),
                words=words,
                assignments=tuple(assignments),
                redirects=tuple(redirects),
                piped=ctx.piped,
                upstream=ctx.upstream,
                pipeline=ctx.pipeline,
                background=ctx.background,
                function=ctx.function,
                cwd=ctx.scope.cwd,
                depth=ctx.depth,
                origin=ctx.origin,
            )
        )
        _track_cd(words, ctx.scope)
        for tail in tails:
            piped = tail.type == "pipeline"
            tail_ctx = attrs.evolve(
                ctx, piped=piped or ctx.piped, upstream=range(index, index + 1), pipeline=piped
            )
            self.visit(tail, tail_ctx)


def _flatten_lists(node: Node) -> list[Node]:
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


def _key(node: Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def _followed_by_amp(children: list[Node], position: int) -> bool:
    for index in range(position + 1, len(children)):
        later = children[index]
        if later.is_named:
            return False
        if later.type == "&":
            return True
    return False


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _text_with(node: Node | None, redirects: list[Node]) -> str:
    parts = [_text(node)] if node is not None else []
    parts.extend(_text(r).split("\n", 1)[0] for r in redirects if r.parent != node)
    return " ".join(part for part in parts if part)


def _track_cd(words: tuple[Word, ...], scope: Scope) -> None:
    if not words or not words[0].guess:
        return
    name = os.path.basename(words[0].guess[0].text)
    if name == "popd":
        scope.cwd = None
    if name not in ("cd", "pushd"):
        return
    operands = [a.text for w in words[1:] for a in w.guess if not a.text.startswith("-")]
    if not operands:
        scope.cwd = scope.vars.get("HOME")
        return
    target = operands[0]
    if "\ufffd" in target or target == "-" or (scope.cwd is None and not target.startswith("/")):
        scope.cwd = None
        return
    scope.cwd = os.path.normpath(os.path.join(scope.cwd or "/", target))


def parse_into(
    collector: Collector,
    source: str,
    *,
    cwd: str | None,
    home: str | None,
    depth: int,
    origin: str | None,
    variables: dict[str, str | None] | None = None,
) -> None:
    """Parse ``source`` and append its simple commands; raise ``AnalysisLimit`` on a bound."""
    if source.count("|") > MAX_PIPES:
        # tree-sitter-bash parses a pipeline in time quadratic in its stages; bound it first.
        raise AnalysisLimit(f"more than {MAX_PIPES} `|` characters")
    parser = Parser(LANGUAGE)
    tree = parser.parse(source.encode("utf-8", "surrogatepass"))
    if tree.root_node.has_error:
        collector.note("hard", "a syntax error", source)
    scope_vars: dict[str, str | None] = {"IFS": " \t\n", "PWD": cwd}
    if home is not None:
        scope_vars["HOME"] = home
    scope_vars.update(variables or {})
    ctx = Ctx(scope=Scope(cwd, scope_vars), depth=depth, origin=origin)
    Walker(collector, home).visit(tree.root_node, ctx)
