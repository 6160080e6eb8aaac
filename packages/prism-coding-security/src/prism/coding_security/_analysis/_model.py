"""What the shell parser extracts: simple commands, redirects, notes, and the analysis budget."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ._render import Rendering
from ._words import Word

__all__ = [
    "MAX_STEPS",
    "AnalysisLimit",
    "Budget",
    "Collector",
    "Ctx",
    "Note",
    "Redirect",
    "Scope",
    "SimpleCommand",
]


class AnalysisLimit(Exception):
    """An analysis bound was reached; the decision degrades to approval (never to allow)."""


@dataclass(frozen=True, slots=True)
class Note:
    """A construct that is not plain; ``structural`` ones are relaxed by deny_metacharacters."""

    kind: Literal["structural", "hard"]
    text: str
    where: str = ""
    """The source text of the construct (quoted in the reason)."""


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection: source fd, target word (None for heredocs) and its class."""

    fd: str | None
    target: Word | None
    kind: Literal["write", "read", "dup", "heredoc", "herestring"]
    body: str | None = None


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command as the shell would run it, with the context the decision needs."""

    index: int
    text: str
    words: tuple[Word, ...]
    assignments: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    piped: bool = False
    upstream: range = range(0)
    """Indices of the commands in earlier stages of the same pipeline (they feed its stdin)."""
    pipeline: bool = False
    background: bool = False
    function: str | None = None
    cwd: str | None = None
    depth: int = 0
    origin: str | None = None


MAX_STEPS = 1_000_000
"""Deterministic work budget of one analysis: syntax nodes, characters produced by expansions
and per-command checks all count. It bounds time and memory whatever the input."""


@dataclass(slots=True)
class Budget:
    """Shared bounds for one analysis: nodes visited, commands extracted, work steps, and a
    wall-clock backstop (the step budget is what bounds the work; the clock only guards a bug)."""

    max_nodes: int
    max_commands: int
    seconds: float
    max_steps: int = MAX_STEPS
    started: float = field(default_factory=time.monotonic)
    nodes: int = 0
    steps: int = 0
    total: int = 0
    """Steps spent over every phase (each phase may spend up to ``max_steps``)."""

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise AnalysisLimit(f"more than {self.max_nodes} syntax nodes")
        self.spend(1)

    def phase(self) -> None:
        """Start the next pass (deny, then allow) with a fresh allowance: a limit reached while
        extracting must not stop the deny checks over what was extracted."""
        self.steps = 0

    def spend(self, amount: int) -> None:
        """Count ``amount`` units of work (a node, a character, a check); raise past the cap."""
        self.total += amount
        self.steps += amount
        if self.steps > self.max_steps:
            raise AnalysisLimit(f"more than {self.max_steps} analysis steps")
        if self.steps & 0x3FF < amount or amount > 0x3FF:
            self.check_time()

    def check_time(self) -> None:
        if time.monotonic() - self.started > self.seconds:
            raise AnalysisLimit(f"analysis took longer than {self.seconds} s")


@dataclass(slots=True)
class Collector:
    """Everything extracted from one command line (nested ``bash -c`` strings included)."""

    budget: Budget
    commands: list[SimpleCommand] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    seen_notes: set[tuple[str, str]] = field(default_factory=set)
    renderings: dict[tuple[int, str], Rendering] = field(default_factory=dict)
    """Each parsed text by (index of the command that runs it or -1, text), for rendering."""
    listable: Callable[[str], bool] = field(default=lambda directory: False)
    """Whether a glob may look into this (real, absolute) directory: inside the roots and no
    secret. The policy lists on the host, outside any sandbox: nothing else is looked at."""

    def note(self, kind: Literal["structural", "hard"], text: str, where: str = "") -> None:
        if (kind, text) in self.seen_notes:
            return
        self.seen_notes.add((kind, text))
        self.budget.spend(len(where) // 64 + 1)
        self.notes.append(Note(kind, text, " ".join(where[:512].split())[:120]))

    def add(self, command: SimpleCommand) -> int:
        if len(self.commands) >= self.budget.max_commands:
            raise AnalysisLimit(f"more than {self.budget.max_commands} simple commands")
        self.commands.append(command)
        return command.index


class Scope:
    """Per-subshell state the walker tracks speculatively: working directory and variables."""

    __slots__ = ("cwd", "vars")

    def __init__(self, cwd: str | None, variables: dict[str, str | None]) -> None:
        self.cwd = cwd
        self.vars = variables

    def copy(self) -> Scope:
        return Scope(self.cwd, dict(self.vars))


@dataclass(frozen=True, slots=True)
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
    guard_cd: bool = False
    """A statement of its own: its ``cd`` is rendered with ``|| exit 1`` (later statements are
    judged in the new directory, so they must not run when the ``cd`` fails)."""
