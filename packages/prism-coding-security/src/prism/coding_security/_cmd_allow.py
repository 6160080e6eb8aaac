"""The read-only allowlist (DESIGN §11 step 2), each entry validated flag by flag.

``allowlisted(argv)`` returns the path operands to check for containment, or why the command
is not read-only. Options that write (``--output``), execute (``rg --pre``, ``find -exec``),
delete (``find -delete``) or follow symlinks out of the tree (``grep -R``, ``find -L``) disqualify.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ._cmd_options import parse_args
from ._cmd_specs import GIT_SPECS, SPECS
from ._cmd_words import Arg, names
from ._rules import ALLOWLIST, GIT_READONLY

__all__ = ["allowlisted", "path_like_operands"]

Verdict = tuple[list[Arg], str | None]
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_FIND_FORBIDDEN = names(
    "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -L -follow"
)
_FIND_PATH_ARGS = names("-newer -anewer -cnewer -samefile -files0-from")
_GIT_GLOBAL = names(
    "--no-pager -P --no-optional-locks --no-replace-objects --literal-pathspecs --glob- "
    "pathspecs --noglob-pathspecs --icase-pathspecs"
)
_GIT_BRANCH_OK = names(
    "-a -r -l -v -vv -q -i --all --remotes --list --verbose --quiet --show-current "
    "--contains --no-contains --merged --no-merged --points-at --sort --format --color "
    "--no-color --column --no-column --abbrev --no-abbrev --ignore-case --omit-empty"
)


def _files(name: str) -> Callable[[Sequence[Arg]], Verdict]:
    """Commands whose operands are all files to read (ls cat head tail wc stat)."""

    def check(args: Sequence[Arg]) -> Verdict:
        parsed = parse_args(args, SPECS[name])
        return list(parsed.operands) + parsed.values("--files0-from"), None

    return check


def _grep(args: Sequence[Arg]) -> Verdict:
    parsed = parse_args(args, SPECS["grep"])
    if parsed.unknown:
        return [], f"uses an option grep does not document here ({parsed.unknown[0]})"
    if parsed.has("-R"):
        return [], "follows symlinks out of the tree (grep -R)"
    operands = list(parsed.operands)
    if not parsed.values("-e") and not parsed.values("-f") and operands:
        operands = operands[1:]
    return operands + parsed.values("-f") + parsed.values("--exclude-from"), None


def _rg(args: Sequence[Arg]) -> Verdict:
    parsed = parse_args(args, SPECS["rg"])
    for forbidden in ("--pre", "--hostname-bin", "-L"):
        if parsed.has(forbidden):
            return [], f"runs programs or follows symlinks ({forbidden})"
    if parsed.unknown:
        return [], f"uses an option rg does not document here ({parsed.unknown[0]})"
    operands = list(parsed.operands)
    listing = parsed.has("--files", "--type-list")
    if not listing and not parsed.values("-e") and not parsed.values("-f") and operands:
        operands = operands[1:]
    return operands + parsed.values("-f") + parsed.values("--ignore-file"), None


def _find(args: Sequence[Arg]) -> Verdict:
    texts = [a.text for a in args]
    index = 0
    paths: list[Arg] = []
    while index < len(texts) and texts[index] in ("-H", "-P", "-L", "-D", "-O"):
        if texts[index] == "-L":
            return [], "follows symlinks out of the tree (find -L)"
        index += 2 if texts[index] == "-D" else 1
    while index < len(texts) and not texts[index].startswith(("-", "(", "!", ")", ",")):
        paths.append(args[index])
        index += 1
    for position in range(index, len(texts)):
        text = texts[position]
        if text in _FIND_FORBIDDEN:
            return [], f"uses `{text}`, which runs, deletes, writes or follows links"
        if text in _FIND_PATH_ARGS and position + 1 < len(args):
            paths.append(args[position + 1])
    return paths, None


def _git_paths(operands: Sequence[Arg], after_dashdash: Sequence[Arg]) -> list[Arg]:
    looks = [a for a in operands if a.text.startswith(("/", "./", "../", "~")) or a.text == ".."]
    return looks + list(after_dashdash)


def _git(args: Sequence[Arg]) -> Verdict:
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        if args[index].text not in _GIT_GLOBAL:
            return [], f"uses the git option {args[index].text}"
        index += 1
    if index >= len(args) or args[index].text not in GIT_READONLY:
        sub = args[index].text if index < len(args) else "(none)"
        return [], f"runs `git {sub}`, which is not a read-only git command"
    sub = args[index].text
    rest = list(args[index + 1 :])
    dashdash = [i for i, a in enumerate(rest) if a.text == "--"]
    after = rest[dashdash[0] + 1 :] if dashdash else []
    before = rest[: dashdash[0]] if dashdash else rest
    for arg in before:
        name = arg.text.split("=", 1)[0]
        if name.startswith("--") and len(name) >= 5 and "--output".startswith(name):
            return [], "writes a file (--output)"
        if name in ("--ext-diff", "--open-files-in-pager", "-O"):
            return [], f"can run external programs ({name})"
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
    return _git_paths(operands, after), None


def _anything(args: Sequence[Arg]) -> Verdict:
    return [], None


_VALIDATORS: dict[str, Callable[[Sequence[Arg]], Verdict]] = {
    "ls": _files("ls"),
    "cat": _files("cat"),
    "head": _files("head"),
    "tail": _files("tail"),
    "wc": _files("wc"),
    "stat": _files("stat"),
    "grep": _grep,
    "rg": _rg,
    "find": _find,
    "git": _git,
    "echo": _anything,
    "pwd": _anything,
    "which": _anything,
}
assert set(_VALIDATORS) == ALLOWLIST


def allowlisted(argv: Sequence[Arg]) -> Verdict:
    """(path operands, None) when ``argv`` is a read-only allowlisted call, else ([], reason)."""
    name = argv[0].text
    validator = _VALIDATORS.get(name)
    if validator is None:
        return [], "is not on the read-only allowlist"
    return validator(argv[1:])


def path_like_operands(argv: Sequence[Arg]) -> list[Arg]:
    """Words of a host-allowed command that name paths (checked for containment)."""
    found: list[Arg] = []
    for arg in argv[1:]:
        text = arg.text
        if text.startswith("-"):
            if "=" not in text:
                continue
            text = text.split("=", 1)[1]
        if _URL.match(text):
            continue
        if text.startswith(("/", "~", "./", "../")) or text in ("..", ".") or "/" in text:
            found.append(Arg(text, arg.glob, arg.subst))
    return found
