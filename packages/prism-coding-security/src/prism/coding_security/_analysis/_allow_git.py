"""``git`` on the read-only allowlist: global options, subcommands and their options.

Only ``status log diff show branch blame`` and ``stash list|show`` pass; options that run a
configured program, read another file or write (``--output``) refuse; path operands (and
``-C DIR``) are returned for the containment check. The policy runs git hardened (``_harden``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ._options import parse_args
from ._rules import GIT_READONLY
from ._specs import GIT_SPECS
from ._words import Arg, names

__all__ = ["git_read_only"]

Verdict = tuple[list[Arg], str | None]
_GIT_GLOBAL = names(
    "--no-pager -P --no-optional-locks --no-replace-objects --literal-pathspecs "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs"
)
_GIT_RUNS = names("--ext-diff --textconv --exec --open-files-in-pager --paginate")
"""Options that make git run a configured program or read another file."""
_GIT_BRANCH_OK = names(
    "-a -r -l -v -vv -q -i --all --remotes --list --verbose --quiet --show-current "
    "--contains --no-contains --merged --no-merged --points-at --sort --format --color "
    "--no-color --column --no-column --abbrev --no-abbrev --ignore-case --omit-empty"
)


def _git_paths(operands: Sequence[Arg], after_dashdash: Sequence[Arg]) -> list[Arg]:
    looks = [a for a in operands if a.text.startswith(("/", "./", "../", "~")) or a.text == ".."]
    return looks + list(after_dashdash)


def _rebase(paths: list[Arg], base: str | None) -> list[Arg]:
    """Path operands of ``git -C base …`` are relative to ``base``; ``base`` is checked too."""
    if base is None:
        return paths
    moved = [
        a if a.text.startswith(("/", "~")) else Arg(os.path.join(base, a.text), a.glob, a.subst)
        for a in paths
    ]
    return [Arg(base), *moved]


def git_read_only(args: Sequence[Arg]) -> Verdict:
    paths, reason, base = _git_checked(args)
    return _rebase(paths, base), reason


def _git_checked(args: Sequence[Arg]) -> tuple[list[Arg], str | None, str | None]:
    index = 0
    base: str | None = None
    while index < len(args) and args[index].text.startswith("-"):
        if args[index].text == "-C" and index + 1 < len(args):
            directory = args[index + 1].text
            if directory:
                base = directory if base is None else os.path.join(base, directory)
            index += 2
            continue
        if args[index].text not in _GIT_GLOBAL:
            return [], f"uses the git option {args[index].text}", base
        index += 1
    paths, reason = _git_sub(args[index:])
    return paths, reason, base


def _git_sub(args: Sequence[Arg]) -> Verdict:
    index = 0
    if index >= len(args) or args[index].text not in GIT_READONLY:
        sub = args[index].text if index < len(args) else "(none)"
        return [], f"runs `git {sub}`, which is not a read-only git command"
    sub = args[index].text
    rest = list(args[index + 1 :])
    if sub == "stash":
        if not rest or rest[0].text not in ("list", "show"):
            return [], "changes the stash (only `git stash list` and `git stash show` read it)"
        rest = rest[1:]
    dashdash = [i for i, a in enumerate(rest) if a.text == "--"]
    after = rest[dashdash[0] + 1 :] if dashdash else []
    before = rest[: dashdash[0]] if dashdash else rest
    for arg in before:
        name = arg.text.split("=", 1)[0]
        if name.startswith("--") and len(name) >= 5 and "--output".startswith(name):
            return [], "writes a file (--output)"
        if name in _GIT_RUNS or name.startswith("-O"):
            return [], f"can run external programs or read other files ({name})"
    parsed = parse_args(before, GIT_SPECS[sub])
    operands = list(parsed.operands)
    if parsed.has("--no-index"):
        return operands + after, None
    if sub == "branch":
        bad = [o for o, _ in parsed.options if o not in _GIT_BRANCH_OK]
        if bad:
            return [], f"changes branches (git branch {bad[0]})"
        if operands and not parsed.has("-l", "--list"):
            return [], "creates a branch (git branch NAME)"
        return [], None
    read = [v for o in ("-S", "--contents", "--ignore-revs-file") for v in parsed.values(o)]
    return _git_paths(operands, after) + read, None
