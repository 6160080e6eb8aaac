"""The read-only allowlist (step 2 of the command decision), each entry validated flag by flag.

``allowlisted(argv)`` returns the path operands to check for containment, or why the command
is not read-only. Options that write (``--output``), execute (``rg --pre``, ``find -exec``),
delete (``find -delete``) or follow symlinks out of the tree (``grep -R``, ``find -L``) disqualify.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence, Set

from ._cmd_check import PathChecker, Unverified
from ._cmd_model import SimpleCommand
from ._cmd_options import parse_args
from ._cmd_paths import absolute, device_write
from ._cmd_specs import GIT_SPECS, SPECS
from ._cmd_words import Arg, names
from ._cmd_wrappers import strict_unwrap
from ._cmd_writes import Target
from ._rules import ALLOWLIST, GIT_READONLY, CommandRule, normalized_text, rule_matches

__all__ = ["allow_reason", "allowlisted", "path_like_operands"]

Verdict = tuple[list[Arg], str | None]
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_FIND_FORBIDDEN = names(
    "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -L -follow -files0-from"
)
_FIND_PATH_ARGS = names("-newer -anewer -cnewer -samefile")
_GIT_GLOBAL = names(
    "--no-pager -P --no-optional-locks --no-replace-objects --literal-pathspecs "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs"
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
        if parsed.has("--files0-from"):
            return [], "reads file names from a list (--files0-from)"
        return list(parsed.operands), None

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
        if name in ("--ext-diff", "--open-files-in-pager") or name.startswith("-O"):
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
    """(path operands, None) when ``argv`` is a read-only allowlisted call, else ([], reason).

    Every globbed word counts as a path: ``grep * x`` turns file names into the pattern *and*
    into more files to read, wherever the glob stands.
    """
    name = argv[0].text
    validator = _VALIDATORS.get(name)
    if validator is None:
        return [], "is not on the read-only allowlist"
    paths, reason = validator(argv[1:])
    if reason is None and name not in ("echo", "pwd", "which"):
        paths += [arg for arg in argv[1:] if arg.glob and arg not in paths]
    return paths, reason


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


def _redirects_reason(command: SimpleCommand, checker: PathChecker, strict: bool) -> str | None:
    for redirect in command.redirects:
        if redirect.kind in ("dup", "heredoc", "herestring"):
            continue
        word = redirect.target
        if word is None or word.exact is None or len(word.exact) != 1:
            return "redirects to a target only known at run time"
        text = word.exact[0].text
        path = absolute(text, command.cwd)
        if redirect.kind == "write":
            if path is not None and device_write(path) == "safe":
                continue
            if strict:
                return f"redirects output to `{text}` (a file write)"
            try:
                if checker.write(Target(word.exact[0]), command.cwd) is None:
                    continue
            except Unverified:
                pass
            return f"redirects output to `{text}`, which cannot be verified"
        if command.cwd is None or checker.read_outside(word.exact[0], command.cwd):
            return f"reads `{text}`, which is outside the workspace"
    return None


def allow_reason(
    command: SimpleCommand,
    *,
    checker: PathChecker,
    rules: Sequence[CommandRule],
    strict: bool,
    functions: Set[str],
    cwd: str,
) -> str | None:
    """Why ``command`` is not provably read-only and contained (None: it may be allowed)."""
    reason = _redirects_reason(command, checker, strict)
    if reason is not None or not command.words:
        return reason
    for word in command.words:
        if word.exact is None:
            return f"uses {word.dynamic}"
    argv = [a for word in command.words for a in word.exact or ()]
    peeled = strict_unwrap(argv)
    if isinstance(peeled, str):
        return peeled
    inner, _ = peeled
    texts = [normalized_text(argv, canonical=False), normalized_text(inner, canonical=False)]
    if any(r.action == "allow" and rule_matches(r, texts, canonical=False) for r in rules):
        paths = path_like_operands(inner)
    elif "/" in inner[0].text:
        return (
            "runs a program by path; only allowlisted commands found on PATH run without approval"
        )
    elif inner[0].text in functions:
        return "calls a function defined in the same command"
    else:
        paths, why = allowlisted(inner)
        if why is not None:
            return why
    if paths and command.cwd is None:
        return "runs after a directory change that cannot be followed"
    for path in paths:
        outside = checker.read_outside(path, command.cwd or cwd)
        if outside is not None:
            return f"reads outside the workspace: {outside}"
    return None
