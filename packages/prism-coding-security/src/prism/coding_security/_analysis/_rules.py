"""Host command rules (``CommandRule``), the normalized text they match, and the built-in lists.

A rule's ``pattern`` is matched against the *normalized text* of each simple command the
analysis extracts (a wrapper such as ``timeout 5 make`` yields ``timeout 5 make`` and ``make``):

* the executable: as written when it contains a ``/`` (``./ls`` is never ``ls``); otherwise its
  name (for ``deny``/``ask`` rules also the basename of a path-qualified executable, NFKC-folded
  and lower-cased, so ``"/bin/rm"`` and ``ｒｍ`` meet a ``rm …`` deny rule);
* then, for commands whose options are known (``rm cp mv chmod grep git push`` …), the options in
  canonical spelling, sorted (``rm -r -f x``, ``rm -fr x`` and ``rm --recursive --force x`` all
  read ``rm -f -r x``; a value follows its option: ``head -n 5``, ``git log --format=%H``);
  for other commands the words as written;
* then the operands, de-quoted, all joined by single spaces.

A ``str`` pattern is a glob over that text (``*`` matches any run of characters, spaces and
``/`` included; ``?`` one character; ``[…]`` a class). The pattern is split into words and
normalized the same way, so ``CommandRule("rm -rf *", "deny")`` also matches ``rm -r -f x``. A
trailing `` *`` also matches nothing more (``git push *`` matches ``git push``). A compiled
``re.Pattern`` must match the whole normalized text (``fullmatch``).
"""

from __future__ import annotations

import fnmatch
import functools
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from prism.core.options import check_choice

from ._options import parse_args
from ._specs import GIT_SPECS, SPECS
from ._unwrap import canonical_name
from ._words import Arg, names

__all__ = [
    "ALLOWLIST",
    "GIT_READONLY",
    "MAX_PATTERN_CHARS",
    "CommandRule",
    "normalized_text",
    "rule_matches",
]

MAX_PATTERN_CHARS = 4096
ALLOWLIST = names(
    "ls cat head tail wc grep rg find echo pwd which stat git nl tac rev cut paste uniq base64 "
    "tr seq true false uname whoami id expr numfmt sed cd bash sh dash zsh "
    "sort diff du file tree env jq awk xargs exit"
)
"""The read-only allowlist (each still validated: flags, operands, git subcommand; ``sed`` only
with a recognized print-only script, shells only as ``bash -c|-lc SCRIPT`` whose script is
analysed too; docs/security.md has the table)."""
GIT_READONLY = names("status log diff show branch blame stash")


def _check_pattern(value: object) -> None:
    where = "CommandRule.pattern"
    if isinstance(value, re.Pattern):
        if not isinstance(value.pattern, str):
            raise TypeError(f"{where} must be a str pattern when compiled, got {value!r}")
        return
    if not isinstance(value, str):
        rule = "a str glob or a compiled re.Pattern"
        raise TypeError(f"{where} must be {rule}, got {value!r:.200}")
    if not value.strip():
        raise ValueError(f"{where} must be a non-blank str, got {value!r}")
    if len(value) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"{where} must be at most {MAX_PATTERN_CHARS} characters, got {value!r:.200}"
        )
    if any(ch in value for ch in "\x00\n\r"):
        raise ValueError(
            f"{where} must be a str without NUL, newline or carriage return, got {value!r}"
        )
    try:
        words = shlex.split(value)
    except ValueError as error:
        raise ValueError(f"{where} must be shell words ({error}), got {value!r}") from None
    if not words:
        raise ValueError(f"{where} must be at least one shell word, got {value!r}")


@dataclass(frozen=True, slots=True)
class CommandRule:
    """A host rule: ``allow``, ``deny`` or ``ask`` (force approval) for matching commands.

    See the module documentation for what ``pattern`` matches. Deny rules and the built-in deny
    set are checked before any allow rule; an allow rule never skips them.
    """

    pattern: str | re.Pattern[str]
    action: Literal["allow", "deny", "ask"]
    reason: str | None = None

    def __post_init__(self) -> None:
        _check_pattern(self.pattern)
        check_choice("CommandRule.action", self.action, ("allow", "deny", "ask"))
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"CommandRule.reason must be a str or None, got {self.reason!r}")


def _unit(name: str, value: Arg | None) -> str:
    if value is None:
        return name
    return f"{name}={value.text}" if name.startswith("--") else f"{name} {value.text}"


def _normalize_args(name: str, args: Sequence[Arg]) -> list[str]:
    spec = SPECS.get(name)
    prefix: list[str] = []
    if name == "git":
        index = 0
        while index < len(args) and args[index].text.startswith("-"):
            index += 2 if args[index].text in ("-C", "-c") else 1
        prefix = [a.text for a in args[: index + 1]]
        sub = args[index].text if index < len(args) else ""
        spec = GIT_SPECS.get(sub)
        args = args[index + 1 :]
        if spec is None:
            return prefix + [a.text for a in args]
    if spec is None:
        return [a.text for a in args]
    parsed = parse_args(args, spec)
    units = sorted(_unit(option, value) for option, value in parsed.options)
    return prefix + units + [a.text for a in parsed.operands]


def normalized_text(argv: Sequence[Arg], *, canonical: bool) -> str:
    """The text rules match: see the module documentation."""
    if not argv:
        return ""
    exe = argv[0].text
    name = canonical_name(exe) if canonical else exe
    return " ".join([name, *_normalize_args(canonical_name(exe), argv[1:])])


@functools.lru_cache(maxsize=512)
def _compiled_glob(pattern: str, canonical: bool) -> tuple[re.Pattern[str], str | None]:
    words = shlex.split(pattern)
    has_magic = any(ch in words[0] for ch in "*?[")
    argv = [Arg(word) for word in words]
    if has_magic:
        text = " ".join([words[0], *_normalize_args(canonical_name(words[0]), argv[1:])])
    else:
        text = normalized_text(argv, canonical=canonical)
    bare = text[:-2] if text.endswith(" *") else None
    return re.compile(fnmatch.translate(text), re.S), bare


def rule_matches(rule: CommandRule, texts: Sequence[str], *, canonical: bool) -> bool:
    """Does ``rule`` match any of the normalized ``texts``?"""
    if isinstance(rule.pattern, re.Pattern):
        return any(rule.pattern.fullmatch(text) for text in texts)
    compiled, bare = _compiled_glob(rule.pattern, canonical)
    return any(compiled.match(text) or (bare is not None and text == bare) for text in texts)
