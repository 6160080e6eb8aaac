"""Parse shell text with tree-sitter-bash into simple commands (for the command analysis).

The walker visits every node: lists, pipelines, substitutions, subshells, groups, functions,
control flow, heredocs and ERROR recovery nodes, so a command hidden anywhere is extracted. What
cannot be proven plain is recorded as a ``Note``; limits raise ``AnalysisLimit`` and the caller
keeps what was extracted so far (deny still applies, allow never does).
"""

from __future__ import annotations

from dataclasses import replace

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from ._loops import loop_bodies
from ._model import AnalysisLimit, Collector, Ctx, Scope, SimpleCommand
from ._redirects import RedirectParts, build_redirect
from ._render import Rendering, Span, word_spans
from ._repair import misread, segments
from ._syntax import (
    CONTROL,
    REDIRECTS,
    clip,
    exit_follows,
    flatten_lists,
    followed_by_amp,
    key,
    loose_word,
    node_text,
    text_with,
    track_cd,
    valid_assignment,
)
from ._wordnodes import WordBuilder

__all__ = ["LANGUAGE", "Ctx", "Scope", "Walker", "parse_into"]

LANGUAGE = Language(tree_sitter_bash.language())

MAX_PIPES = 1000
"""``|`` characters allowed in one parsed text (long pipelines parse in quadratic time)."""
MAX_NESTING = 120
"""Syntax-tree nesting the walker follows before giving up (keeps Python's stack bounded)."""


class Walker:
    """Visit a tree-sitter-bash tree and append ``SimpleCommand``s to the collector."""

    def __init__(self, collector: Collector, home: str | None, data: bytes = b"") -> None:
        self.out = collector
        self.data = data
        self.home = home
        self.words = WordBuilder(self, home)
        self.pending: dict[tuple[int, int, str], list[Node]] = {}
        self.spans: list[Span] = []
        """Where each word lies and what it was judged to be (for the rendering)."""

    def glued(self, before: Node, after: Node) -> bool:
        """One word: adjacent, or joined by what tree-sitter drops (``a\\<TAB>b``, ``r\\<NL>m``)."""
        gap = self.data[before.end_byte : after.start_byte]
        return gap == b"" or (len(gap) == 2 and gap[:1] == b"\\" and gap[1:] in b"\t \n")

    # -- statements -------------------------------------------------------------------------
    def visit(self, node: Node, ctx: Ctx) -> None:
        self.out.budget.tick()
        if ctx.nesting > MAX_NESTING:
            raise AnalysisLimit(f"syntax nested deeper than {MAX_NESTING} levels")
        ctx = replace(ctx, nesting=ctx.nesting + 1)
        kind = node.type
        pending = self.pending.pop(key(node), None)
        if pending is not None:
            if kind == "command":
                self.command(node, ctx, pending)
                return
            self.command(None, ctx, pending, text=node_text(node))
        if node.is_error or node.is_missing:
            self.out.note("hard", "a syntax error", node_text(node))
        if kind == "command":
            self.command(node, ctx, [])
        elif kind == "pipeline":
            self.pipeline(node, ctx)
        elif kind == "redirected_statement":
            self.redirected(node, ctx)
        elif kind in ("program", "list", "do_group", "else_clause", "elif_clause"):
            self.sequence(node, ctx)
        elif kind == "ERROR":
            self.error(node, ctx)
        elif kind == "subshell":
            self.out.note("structural", "a subshell `( … )`", node_text(node))
            self.sequence(node, replace(ctx, scope=ctx.scope.copy()))
        elif kind == "compound_statement":
            self.compound(node, ctx)
        elif kind == "function_definition":
            self.function(node, ctx)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.assignment(node, ctx)
        elif kind == "declaration_command":
            self.out.note("hard", "a declaration that changes shell state", node_text(node))
            self.assignment(node, ctx)
        elif kind == "unset_command":
            self.out.note("hard", "`unset`, which changes shell state", node_text(node))
            for child in node.named_children:
                ctx.scope.vars[node_text(child)] = None
        elif kind in ("command_substitution", "process_substitution"):
            self.words.substitution(node, ctx)
        elif kind == "comment":
            self.spans.append(Span(node.start_byte, node.end_byte))
            return
        else:
            self.other(node, ctx)

    def other(self, node: Node, ctx: Ctx) -> None:
        bodies = loop_bodies(self, node, ctx) if node.type == "for_statement" else None
        if bodies is not None:
            keys: list[tuple[int, str]] = []
            for body in bodies:  # one copy per value: each judged (and rendered) like any command
                keys.append((-2 - len(self.out.renderings), body))
                parse_into(
                    self.out,
                    body,
                    cwd=ctx.scope.cwd,
                    home=self.home,
                    depth=ctx.depth,
                    origin=ctx.origin,
                    key=keys[-1],
                )
            # The loop runs as the copies that were judged: `{ FIRST ; SECOND ; }`.
            self.spans.append(Span(node.start_byte, node.end_byte, inner=tuple(keys)))
            return
        if node.type in CONTROL:
            self.out.note("hard", f"control flow ({CONTROL[node.type]})", node_text(node))
        elif node.type not in ("heredoc_body", "case_item"):
            self.out.note("hard", f"an unsupported shell construct ({node.type})", node_text(node))
        if node.type == "for_statement":
            variable = node.child_by_field_name("variable")
            if variable is not None:
                ctx.scope.vars[node_text(variable)] = None
        for child in node.named_children:
            self.visit(child, ctx)

    def sequence(self, node: Node, ctx: Ctx) -> None:
        chain = node.type == "list"  # an and-or chain: `a && b || c`
        children = flatten_lists(node) if chain else node.children
        start, named, moved = ctx.scope.cwd, 0, False
        for position, child in enumerate(children):
            if not child.is_named:
                if child.type == "&":
                    self.out.note("structural", "a background job `&`", node_text(node))
                if child.is_missing or child.type == "ERROR":
                    self.out.note("hard", "a syntax error", node_text(node))
                exits = chain and exit_follows(children, position)
                if chain and child.type == "||" and ctx.scope.cwd != start and not exits:
                    ctx.scope.cwd = None  # runs after a `cd` that failed or after one that did not
                continue
            background = ctx.background or followed_by_amp(children, position)
            before = ctx.scope.cwd
            guard = not chain and child.type == "command"  # a statement of its own
            self.visit(child, replace(ctx, background=background, guard_cd=guard))
            moved_here = ctx.scope.cwd != before
            if chain and named and moved_here:
                ctx.scope.cwd = None  # `a && cd x`: whether the `cd` ran depends on `a`
            elif chain and moved_here and not exit_follows(children, position):
                moved = True  # `cd x && a`: afterwards x if the `cd` worked, else the start
            elif not chain and moved_here and child.type not in ("command", "list"):
                ctx.scope.cwd = None  # `cd x 2>e; …`: a `cd` the rendering does not guard
            named += 1
        if moved:
            ctx.scope.cwd = None

    def compound(self, node: Node, ctx: Ctx) -> None:
        if node_text(node).startswith("(("):
            self.out.note("hard", "an arithmetic command `(( … ))`", node_text(node))
            self.other_children(node, ctx)
            return
        self.out.note("structural", "a command group `{ …; }`", node_text(node))
        self.sequence(node, ctx)

    def other_children(self, node: Node, ctx: Ctx) -> None:
        for child in node.named_children:
            self.visit(child, ctx)

    def function(self, node: Node, ctx: Ctx) -> None:
        name_node = node.child_by_field_name("name")
        name = node_text(name_node) if name_node is not None else "?"
        self.out.note("hard", "a function definition", node_text(node))
        self.out.functions.add(name)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, replace(ctx, function=name, scope=ctx.scope.copy()))

    def assignment(self, node: Node, ctx: Ctx) -> None:
        if node.type == "variable_assignment":
            self.out.note("hard", "a variable assignment", node_text(node))
            if not valid_assignment(node):
                # `*x=` is no assignment for bash (not a name): it is a command word.
                self.command(None, ctx, [], text=node_text(node), preset=[[node]])
                return
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
        for stage in stages:
            body = (
                stage.child_by_field_name("body") if stage.type == "redirected_statement" else stage
            )
            if body is not None and body.type == "list":
                # `a && b 2>&1 | c` comes back as `(a && b) | c`; bash reads `a && (b | c)`.
                self.out.note("hard", "a pipeline tree-sitter-bash misreads", node_text(node))
        first = ctx.upstream.start if len(ctx.upstream) else len(self.out.commands)
        for position, stage in enumerate(stages):
            upstream = range(first, len(self.out.commands)) if position else ctx.upstream
            stage_ctx = replace(
                ctx,
                scope=ctx.scope.copy(),
                piped=ctx.piped or position > 0,
                upstream=upstream,
                pipeline=True,
            )
            self.visit(stage, stage_ctx)

    def redirected(self, node: Node, ctx: Ctx) -> None:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c.type in REDIRECTS]
        if body is not None and body.type == "command":
            self.command(body, ctx, redirects)
            return
        if body is not None and body.type in ("list", "pipeline"):
            # tree-sitter-bash hangs `a && b > f` on the list; bash redirects only `b`.
            last = body
            while last.type in ("list", "pipeline") and last.named_children:
                last = last.named_children[-1]
            self.pending.setdefault(key(last), []).extend(redirects)
            self.visit(body, ctx)
            return
        # Redirects of a group, pipeline or bare `> file`: an empty carrier command holds them.
        self.command(None, ctx, redirects, text=node_text(node))
        if body is not None:
            self.visit(body, ctx)

    # -- simple commands ----------------------------------------------------------------------
    def error(self, node: Node, ctx: Ctx) -> None:
        """tree-sitter's error recovery: still extract what bash would run (``{rm,-rf,/}``)."""
        self.out.note("hard", "a syntax error", node_text(node))
        children = node.children
        index = 0
        while index < len(children):
            child = children[index]
            if loose_word(children, index):
                # Loose words in a damaged region: read them as the command bash may run.
                parts: list[Node] = []
                while index < len(children) and loose_word(children, index):
                    part = children[index]
                    parts.append(part.named_children[0] if part.type == "command_name" else part)
                    index += 1
                groups: list[list[Node]] = []
                for part in parts:
                    if groups and self.glued(groups[-1][-1], part):
                        groups[-1].append(part)
                    else:
                        groups.append([part])
                self.command(None, ctx, [], text=node_text(node), preset=groups)
                continue
            if child.is_named:
                self.visit(child, ctx)
            index += 1

    def _gather(
        self,
        node: Node,
        ctx: Ctx,
        groups: list[list[Node]],
        assignments: list[str],
        redirects: list[Node],
    ) -> None:
        """Sort a ``command`` node's children into words, prefix assignments and redirects."""
        for position, child in enumerate(node.children):
            field = node.field_name_for_child(position)
            if child.type in REDIRECTS:
                redirects.append(child)
            elif child.type == "variable_assignment" and (groups or not valid_assignment(child)):
                groups.append([child])  # `*x=y cmd` / `cmd a=b`: words, not assignments
            elif child.type in ("variable_assignment", "variable_assignments"):
                assignments.append(node_text(child))
                self.words.assignment(child, ctx)
            elif field in ("name", "argument") or child.type == "command_name":
                target = child.named_children[0] if child.type == "command_name" else child
                if groups and self.glued(groups[-1][-1], target):
                    groups[-1].append(target)
                else:
                    groups.append([target])
            elif child.is_named:
                self.visit(child, ctx)

    def command(
        self,
        node: Node | None,
        ctx: Ctx,
        redirect_nodes: list[Node],
        text: str | None = None,
        preset: list[list[Node]] | None = None,
    ) -> None:
        groups: list[list[Node]] = list(preset or [])
        assignments: list[str] = []
        own_redirects = list(redirect_nodes)
        if node is not None:
            self._gather(node, ctx, groups, assignments, own_redirects)
        if assignments:
            where = node_text(node) if node is not None else assignments[0]
            self.out.note("hard", f"an environment assignment (`{clip(assignments[0])}`)", where)
        parts = RedirectParts(groups)
        for redirect in own_redirects:
            build_redirect(self.words, redirect, ctx, parts)
        redirects, tails = parts.redirects, parts.tails
        words = tuple(self.words.build(group, ctx) for group in groups)
        index = len(self.out.commands)
        self.out.add(
            SimpleCommand(
                index=index,
                text=clip(text if text is not None else text_with(node, own_redirects)),
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
        track_cd(words, ctx.scope)
        self.spans.extend(word_spans(groups, words, index, ctx.scope.cwd, guard=ctx.guard_cd))
        for tail in tails:
            piped = tail.type == "pipeline"
            tail_ctx = replace(
                ctx, piped=piped or ctx.piped, upstream=range(index, index + 1), pipeline=piped
            )
            self.visit(tail, tail_ctx)


def parse_into(
    collector: Collector,
    source: str,
    *,
    cwd: str | None,
    home: str | None,
    depth: int,
    origin: str | None,
    resync: bool = True,
    key: tuple[int, str] | None = None,
) -> None:
    """Parse ``source`` and append its simple commands; raise ``AnalysisLimit`` on a bound."""
    if source.count("|") > MAX_PIPES:
        # tree-sitter-bash parses a pipeline in time quadratic in its stages; bound it first.
        raise AnalysisLimit(f"more than {MAX_PIPES} `|` characters")
    parser = Parser(LANGUAGE)
    data = source.encode("utf-8", "surrogatepass")
    tree = parser.parse(data)
    repairs = misread(tree.root_node, data) if any(m in data for m in (b"#", b"\n", b"``")) else []
    if repairs:
        # tree-sitter-bash misreads `a#; rm x` (a comment only starts a word) and `ls\n\\rm x`
        # (a newline inside a word). Re-read with the `#` made an unknown character and the
        # newline a `;`, as bash reads them (such a command line is never allowed).
        collector.note("hard", "text tree-sitter-bash misreads", source)
        for offset, length, replacement in reversed(repairs):
            data = data[:offset] + replacement + data[offset + length :]
        tree = parser.parse(data)
    if tree.root_node.has_error:
        collector.note("hard", "a syntax error", source)
    scope_vars: dict[str, str | None] = {"IFS": " \t\n", "PWD": cwd}
    if home is not None:
        scope_vars["HOME"] = home
    ctx = Ctx(scope=Scope(cwd, scope_vars), depth=depth, origin=origin)
    walker = Walker(collector, home, data)
    if key is not None:
        collector.renderings[key] = Rendering(data, walker.spans)
    walker.visit(tree.root_node, ctx)
    if tree.root_node.has_error and resync:
        # Error recovery can nest what bash runs separately (`[;rm -rf /`): also read each
        # top-level segment on its own. Extra commands only add denials; this is never allowed.
        text = data.decode("utf-8", "replace")
        parts = segments(text)
        for part in parts if parts != [text] else ():
            parse_into(
                collector, part, cwd=cwd, home=home, depth=depth, origin=origin, resync=False
            )
