"""One word being built: its exact and guessed characters (``Acc``), and the passes over them
once every node is read: stray ``$``, the tilde prefix, and field splitting of the guess.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._fields import EXPANDS_AFTER_DOLLAR
from ._words import (
    QUOTED,
    UNKNOWN,
    Arg,
    Chars,
    brace_expand,
    brace_sample,
    chars_text,
    has_glob,
    lit,
    split_fields,
)

if TYPE_CHECKING:
    from ._model import Ctx

__all__ = ["Acc", "guess_fields", "stray_dollars", "tilde"]


@dataclass(slots=True)
class Acc:
    """One word's characters so far: the exact view (``None`` once unknown) and the guess."""

    exact: Chars | None = dataclasses.field(default_factory=list)
    guess: Chars = dataclasses.field(default_factory=list)
    subst: list[int] = dataclasses.field(default_factory=list)
    procsub: bool = False
    dynamic: str | None = None

    def add(self, chars: Chars) -> None:
        if self.exact is not None:
            self.exact.extend(chars)
        self.guess.extend(chars)

    def unknown(self, reason: str, guess: Chars | None = None) -> None:
        self.exact = None
        self.dynamic = self.dynamic or reason
        self.guess.extend(guess if guess is not None else [(UNKNOWN, QUOTED)])


def guess_fields(chars: Chars, ifs: str, subst: tuple[int, ...], procsub: bool) -> tuple[Arg, ...]:
    """Field-split and brace-expand the speculative view (a too-large expansion is sampled)."""
    result: list[Arg] = []
    for field in split_fields(chars, ifs):
        expanded = brace_expand(field)
        if expanded is None:
            expanded = brace_sample(field)
        result.extend(Arg(chars_text(item), has_glob(item), subst, procsub) for item in expanded)
    return tuple(result)


def stray_dollars(acc: Acc) -> None:
    """A literal ``$`` that tree-sitter left before ``!``, a name … (``a$!b``) is an expansion."""
    guess = acc.guess
    out: Chars = []
    index = 0
    while index < len(guess):
        ch, flags = guess[index]
        if ch == "$" and not flags and index + 1 < len(guess):
            after, after_flags = guess[index + 1]
            if not after_flags and (after in EXPANDS_AFTER_DOLLAR or after.isalpha()):
                out.append((UNKNOWN, QUOTED))
                acc.exact = None
                acc.dynamic = acc.dynamic or f"`${after}`, whose value is only known at run time"
                index += 2
                continue
        out.append((ch, flags))
        index += 1
    acc.guess = out


def tilde(raw: str, acc: Acc, ctx: Ctx) -> None:
    """Expand a leading ``~`` or ``~+`` (another user's ``~name`` is unknown in the exact view)."""
    if not raw.startswith("~") or not acc.guess or acc.guess[0] != ("~", 0):
        return
    end = 0
    while end < len(acc.guess) and acc.guess[end] != ("/", 0):
        end += 1
    name = chars_text(acc.guess[1:end])
    if not all(ch.isalnum() or ch in "._+-" for ch in name):
        return
    home = ctx.scope.vars.get("HOME")
    value: str | None
    if name == "":
        value = home
    elif name == "+":
        value = ctx.scope.cwd
    else:
        value = "/root" if name == "root" else None
    replacement = lit(value if value is not None else UNKNOWN, QUOTED)
    acc.guess[:end] = replacement
    if acc.exact is not None:
        if value is None or name not in ("", "+"):
            acc.exact = None
            acc.dynamic = acc.dynamic or f"`~{name}`, another user's home directory"
        else:
            acc.exact[:end] = replacement
