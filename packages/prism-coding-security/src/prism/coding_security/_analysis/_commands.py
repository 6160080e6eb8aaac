"""Command analysis: the three-step decision deny → allow → needs approval (docs/security.md).

1. **deny** when any extracted program hits a host ``deny`` rule or the default deny set, or a
   write target leaves the roots (or enters ``.git/hooks``/``.git/config``). Checked first, over
   everything extracted, even when an analysis limit stopped the walk early.
2. **allow** when every simple command is read-only allowlisted (or host-allowed), every word is
   known statically, every path operand stays inside the roots, and nothing unprovable is used.
3. **needs-approval** otherwise, including any analysis limit (never allow on a limit).

``deny_metacharacters=True`` (default): the shell constructs beyond plain lists and pipelines
(``;`` ``&&`` ``||`` ``|``) — substitutions, process substitutions, subshells, groups,
background ``&``, heredocs/here-strings and redirections to files — are never allowed without
approval. ``False``: those constructs are looked through and their commands, operands and
redirect targets judged like any other. Either way control flow (except a ``for`` loop that
``_loops`` can unroll), functions, assignments,
environment prefixes, line breaks, parse errors, path-qualified executables and any word whose
value is only known at run time (a substitution result, ``$VAR``) need approval.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, final

from .._paths import DEFAULT_PROTECTED
from .._protected import ProtectedPaths
from ._allow import allow_reason
from ._check import PathChecker
from ._command_denials import command_denial
from ._flow import fork_bomb
from ._model import MAX_STEPS, AnalysisLimit, Budget, Collector, Redirect, SimpleCommand
from ._parse import parse_into
from ._render import render
from ._rules import CommandRule, normalized_text, rule_matches
from ._unwrap import (
    INTERPRETERS,
    SHELLS,
    Reparse,
    Unwrapped,
    empty_expansion_variants,
    glob_name_variants,
    interpreter_code,
    literals,
    shell_mode,
)
from ._wrappers import unwrap

__all__ = ["CommandVerdict", "analyze_command"]

MAX_COMMAND_CHARS = 65_536
MAX_NODES = 400_000
MAX_COMMANDS = 4_096
MAX_DEPTH = 6
ANALYSIS_SECONDS = 5.0
"""Wall-clock backstop only; the deterministic step budget (``MAX_STEPS``) bounds the work."""
COMMAND_STEPS = 32
"""Steps one simple command costs in each pass (unwrap, deny checks, allow checks)."""
ARG_STEPS = 128
"""Steps one argument costs (unwrapping, secret and containment checks touch the disk)."""


@final
@dataclass(frozen=True, slots=True)
class CommandVerdict:
    """The analysis result; ``reason`` names the offending command and what to do."""

    decision: Literal["allow", "deny", "needs-approval"]
    reason: str
    programs: frozenset[str] = frozenset()
    """Names of the programs an allowed command runs (the policy hardens git and rg)."""
    rendered: str | None = None
    """For ``allow``: the command that was judged, every word its literal value (run this)."""


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Analysis:
    def __init__(
        self,
        command: str,
        *,
        cwd: str,
        roots: Sequence[str],
        home: str | None,
        rules: Sequence[CommandRule],
        deny_metacharacters: bool,
        protected: ProtectedPaths = DEFAULT_PROTECTED,
    ) -> None:
        self.command = command
        self.cwd = cwd
        self.home = home
        self.rules = tuple(rules)
        self.strict = deny_metacharacters
        self.checker = PathChecker(roots, home, protected)
        self.out = Collector(
            Budget(MAX_NODES, MAX_COMMANDS, ANALYSIS_SECONDS, MAX_STEPS),
            listable=self.checker.listable,
        )
        self.table: dict[int, Unwrapped] = {}
        self.limit: str | None = None

    # -- extraction ---------------------------------------------------------------------------
    def extract(self) -> None:
        try:
            parse_into(
                self.out,
                self.command,
                cwd=self.cwd,
                home=self.home,
                depth=0,
                origin=None,
                key=(-1, self.command),
            )
        except AnalysisLimit as limit:
            self.limit = str(limit)
        self.out.budget.phase()  # unwrap what was extracted, even after a parse limit
        index = 0
        try:
            while index < len(self.out.commands):
                self.out.budget.spend(COMMAND_STEPS)
                self._expand(self.out.commands[index])
                index += 1
        except AnalysisLimit as limit:
            self.limit = self.limit or str(limit)

    def _stdin_items(self, command: SimpleCommand) -> list[str] | None:
        if not command.piped or not command.upstream:
            return None
        source = self.out.commands[command.upstream[-1]]
        argv = [a for w in source.words for a in w.guess]
        if not argv or argv[0].text not in ("echo", "printf"):
            return None
        return [
            part for a in argv[1:] if a.text not in ("-n", "-e", "-E") for part in a.text.split()
        ]

    def _expand(self, command: SimpleCommand) -> None:
        argv = [a for word in command.words for a in word.guess]
        self.out.budget.spend(ARG_STEPS * len(argv) + sum(len(a.text) for a in argv) // 8)
        unwrapped = unwrap(
            command.index,
            argv,
            cwd=command.cwd,
            piped=command.piped,
            stdin_items=self._stdin_items(command),
        )
        self.table[command.index] = unwrapped
        for variant in empty_expansion_variants(argv) + glob_name_variants(argv, command.cwd):
            # `$X rm -rf /` or `r${X}m -rf /` run `rm` when $X is empty: look at that too.
            extra = unwrap(command.index, variant, cwd=command.cwd, piped=command.piped)
            unwrapped.invocations.extend(extra.invocations)
            unwrapped.reparse.extend(extra.reparse)
            unwrapped.literals.extend(extra.literals)
        for item in unwrapped.reparse:
            self._nested(item.text, command, item.origin)
        for code, _ in unwrapped.literals:
            for literal in literals(code):
                self._nested(literal, command, "a string literal in interpreter code")
        for redirect in command.redirects:
            if redirect.kind in ("heredoc", "herestring") and redirect.body:
                self._fed(redirect, command, unwrapped)

    def _fed(self, redirect: Redirect, command: SimpleCommand, unwrapped: Unwrapped) -> None:
        """Heredoc/here-string text given to a shell (parsed) or interpreter (literals)."""
        body = redirect.body or ""
        subst = redirect.target.subst if redirect.target is not None else ()
        for inv in unwrapped.invocations:
            if inv.name in SHELLS and shell_mode(inv.args)[0] == "stdin":
                self._nested(body, command, f"a heredoc fed to `{inv.name}`")
                origin = f"here-string fed to `{inv.name}`"
                unwrapped.reparse.append(Reparse(body, origin, command.index, subst))
            elif inv.name in INTERPRETERS and interpreter_code(inv.name, inv.args)[1]:
                unwrapped.literals.append((body, command.index))
                for literal in literals(body):
                    self._nested(literal, command, "a string literal in interpreter code")

    def _nested(self, text: str, command: SimpleCommand, origin: str) -> None:
        if not text.strip() or self.limit is not None:
            return
        try:
            if command.depth + 1 > MAX_DEPTH:
                raise AnalysisLimit(f"code nested more than {MAX_DEPTH} levels deep")
            if len(text) > MAX_COMMAND_CHARS:
                raise AnalysisLimit(f"nested code longer than {MAX_COMMAND_CHARS} characters")
            parse_into(
                self.out,
                text,
                cwd=command.cwd,
                home=self.home,
                depth=command.depth + 1,
                origin=origin,
                key=(command.index, text),
            )
        except AnalysisLimit as limit:
            self.limit = str(limit)

    # -- step 1: deny -------------------------------------------------------------------------
    def denial(self) -> str | None:
        self.out.budget.phase()
        try:
            return self._denial()
        except AnalysisLimit as limit:
            self.limit = self.limit or str(limit)
            return None

    def _denial(self) -> str | None:
        for command in self.out.commands:
            self.out.budget.spend(COMMAND_STEPS)
            reason = command_denial(
                command,
                commands=self.out.commands,
                table=self.table,
                checker=self.checker,
                rules=self.rules,
                home=self.home,
            )
            if reason is not None:
                where = f" (inside {command.origin})" if command.origin else ""
                return f"denied: `{_clip(command.text)}`{where} {reason}"
        bomb = fork_bomb(self.out.commands)
        if bomb is not None:
            return (
                f"denied: `{_clip(self.command)}` is a fork bomb: the function `{bomb.function}` "
                "runs copies of itself in a pipeline or in the background"
            )
        return None

    # -- rendering ----------------------------------------------------------------------------
    def rendered(self) -> str | None:
        """The judged command line with every word its literal value; None when not renderable."""
        top = self.out.renderings.get((-1, self.command))
        if top is None:
            return None
        scripts: dict[int, set[str]] = {}
        for index, unwrapped in self.table.items():
            if not unwrapped.reparse:
                continue
            texts = {item.text for item in unwrapped.reparse}
            words = self.out.commands[index].words
            exact = {arg.text for word in words for arg in word.exact or ()}
            if not texts <= exact:
                return None  # a script judged from other words than the ones that run
            scripts[index] = texts

        def nested(index: int, text: str) -> str | None | bool:
            if text not in scripts.get(index, ()):
                return False
            return part((index, text))

        def part(key: tuple[int, str]) -> str | None:
            inner = self.out.renderings.get(key)
            return render(inner, nested, part) if inner is not None else None

        return render(top, nested, part)

    # -- steps 2 and 3: allow or approval -----------------------------------------------------
    def approval(self) -> str | None:
        self.out.budget.phase()
        try:
            reason = self._approval()
        except AnalysisLimit as limit:
            self.limit = self.limit or str(limit)
            reason = None
        if self.limit is not None:
            return (
                f"`{_clip(self.command, 60)}` is too complex to analyse ({self.limit}); "
                "it needs approval"
            )
        return reason

    def _approval(self) -> str | None:
        for command in self.out.commands:
            for inv in self.table.get(command.index, Unwrapped()).invocations:
                texts = [normalized_text(inv.argv, canonical=True)]
                for rule in self.rules:
                    if rule.action == "ask" and rule_matches(rule, texts, canonical=True):
                        why = rule.reason or f"matches the host rule `{rule.pattern}`"
                        return f"`{_clip(command.text)}` {why}; it needs approval"
        first_line = _clip(self.command.replace("\r", "\n").split("\n", 1)[0])
        if "\n" in self.command or "\r" in self.command:
            return (
                f"`{first_line}…` spans several lines (a newline or carriage return separates "
                "commands); it needs approval"
            )
        for note in self.out.notes:
            if note.kind == "hard" or self.strict:
                where = note.where or first_line
                return (
                    f"`{where}` uses {note.text}, which cannot be checked statically; "
                    "it needs approval"
                )
        for command in self.out.commands:
            self.out.budget.spend(COMMAND_STEPS)
            reason = allow_reason(
                command,
                checker=self.checker,
                rules=self.rules,
                strict=self.strict,
                functions=self.out.functions,
                cwd=self.cwd,
                upstream=self._feeder(command),
            )
            if reason is not None:
                return f"`{_clip(command.text)}` {reason}; it needs approval"
        return None

    def _feeder(self, command: SimpleCommand) -> SimpleCommand | None:
        """The pipeline stage right before ``command`` (its standard input), if any."""
        if not command.piped or not command.upstream:
            return None
        return self.out.commands[command.upstream[-1]]


def _invalid(command: object, cwd: object, roots: object) -> str | None:
    if not isinstance(command, str):
        return f"command must be a string, got {type(command).__name__}"
    if not command.strip():
        return "the command is empty"
    if "\x00" in command:
        return "the command contains a NUL byte"
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return f"the working directory {cwd!r} is not an absolute path"
    if isinstance(roots, str) or not roots:
        return "no workspace roots are configured; every command is denied"
    return None


def analyze_command(
    command: str,
    *,
    cwd: str,
    roots: Sequence[str],
    home: str | None,
    rules: Sequence[CommandRule] = (),
    deny_metacharacters: bool = True,
    protected: ProtectedPaths = DEFAULT_PROTECTED,
) -> CommandVerdict:
    """Decide one shell command line: ``allow``, ``deny`` or ``needs-approval`` with a reason."""
    invalid = _invalid(command, cwd, roots)
    if invalid is not None:
        return CommandVerdict("deny", f"denied: {invalid}")
    if len(command) > MAX_COMMAND_CHARS:
        return CommandVerdict(
            "needs-approval",
            f"`{_clip(command, 60)}` is longer than {MAX_COMMAND_CHARS} characters and cannot "
            "be analysed; "
            "it needs approval",
        )
    analysis = _Analysis(
        command,
        cwd=cwd,
        roots=roots,
        home=home,
        rules=rules,
        deny_metacharacters=deny_metacharacters,
        protected=protected,
    )
    analysis.extract()
    denial = analysis.denial()
    if denial is not None:
        return CommandVerdict("deny", denial)
    approval = analysis.approval()
    if approval is not None:
        return CommandVerdict("needs-approval", approval)
    rendered = analysis.rendered()
    if rendered is None:
        return CommandVerdict(
            "needs-approval",
            f"`{_clip(command, 60)}` cannot be rendered as the literal command that was judged; "
            "it needs approval",
        )
    programs = frozenset(
        inv.name for unwrapped in analysis.table.values() for inv in unwrapped.invocations
    )
    return CommandVerdict(
        "allow",
        "allowed: every command is read-only and its paths stay inside the workspace",
        programs,
        rendered,
    )
