"""The read-only allowlist (step 2 of the command decision), each entry validated flag by flag.

``allowlisted(argv)`` returns the path operands to check for containment, or why the command
is not read-only. Options that write (``--output``), execute (``rg --pre``, ``find -exec``),
delete (``find -delete``) or follow symlinks out of the tree (``grep -R``, ``find -L``) disqualify.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence, Set

from ._allow_extra import EXTRA_VALIDATORS
from ._allow_git import git_read_only
from ._allow_more import base64_files, cd_target, shell_script, uniq_files
from ._check import PathChecker, Unverified
from ._links import Follow, escaping_link
from ._model import SimpleCommand
from ._operands import absolute, device_write
from ._options import parse_args
from ._rules import ALLOWLIST, CommandRule, normalized_text, rule_matches
from ._sed_allow import sed_read_only
from ._specs import SPECS
from ._specs_more import EXTRA_SPECS
from ._syntax import cd_destination
from ._words import Arg, names
from ._wrappers import strict_unwrap
from ._writes import Target
from ._xargs import split_xargs, xargs_source_reason

__all__ = ["allow_reason", "allowlisted", "path_like_operands"]

Verdict = tuple[list[Arg], str | None]
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_FIND_FORBIDDEN = names(
    "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -files0-from"
)
_FIND_PATH_ARGS = names("-newer -anewer -cnewer -samefile")
_FIND_OPTIMIZE = re.compile(r"-O[0-9]*")
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]")
_FIND_NULLARY = names(
    "-print -print0 -ls -prune -quit -true -false -empty -executable -readable -writable "
    "-nouser -nogroup -depth -d -mount -xdev -noleaf -ignore_readdir_race "
    "-noignore_readdir_race -daystart -follow -warn -nowarn -not -a -and -o -or ! ( ) ,"
)
_FIND_UNARY = names(
    "-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -type "
    "-xtype -size -perm -user -group -uid -gid -links -inum -mtime -atime -ctime -mmin -amin "
    "-cmin -maxdepth -mindepth -newer -anewer -cnewer -samefile -used -fstype -printf "
    "-regextype -context"
)
_NO_PATHS = names("exit echo pwd tr seq true false uname whoami id expr numfmt bash sh dash zsh")
"""Allowlisted commands whose words are never file names (globs there are no file reads)."""


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
    operands = list(parsed.operands)
    if not parsed.values("-e") and not parsed.values("-f") and operands:
        operands = operands[1:]
    return operands + parsed.values("-f") + parsed.values("--exclude-from"), None


def _rg(args: Sequence[Arg]) -> Verdict:
    parsed = parse_args(args, SPECS["rg"])
    for forbidden in ("--pre", "--pre-glob", "--hostname-bin", "-z"):
        if parsed.has(forbidden):
            name = "--search-zip" if forbidden == "-z" else forbidden
            return [], f"runs other programs ({name})"
    if parsed.unknown:
        return [], f"uses an option rg does not document here ({parsed.unknown[0]})"
    operands = list(parsed.operands)
    listing = parsed.has("--files", "--type-list")
    if not listing and not parsed.values("-e") and not parsed.values("-f") and operands:
        operands = operands[1:]
    return operands + parsed.values("-f") + parsed.values("--ignore-file"), None


def _find(args: Sequence[Arg]) -> Verdict:
    """``find [-H|-L|-P|-D opts|-O<n>]… [--] [path…] [expression]``: every start path checked."""
    texts = [a.text for a in args]
    index = 0
    while index < len(texts):
        text = texts[index]
        if text == "--":
            index += 1
            break
        if text == "-D":
            index += 2
        elif text in ("-H", "-L", "-P") or _FIND_OPTIMIZE.fullmatch(text):
            index += 1
        else:
            break
    paths: list[Arg] = []
    while index < len(texts) and not texts[index].startswith(("-", "(", "!", ")", ",")):
        paths.append(args[index])
        index += 1
    while index < len(texts):
        text = texts[index]
        if text in _FIND_FORBIDDEN:
            return [], f"uses `{text}`, which runs, deletes or writes"
        arity = _find_arity(text)
        if arity is None:
            return [], f"uses `{text}`, which is not a find expression checked here"
        if text in _FIND_PATH_ARGS or (text.startswith("-newer") and not text.endswith("t")):
            paths.extend(args[index + 1 : index + 1 + arity])
        index += 1 + arity
    return paths, None


def _find_arity(text: str) -> int | None:
    if text in _FIND_NULLARY:
        return 0
    if text in _FIND_UNARY or _FIND_NEWER.fullmatch(text):
        return 1
    return None


def _anything(args: Sequence[Arg]) -> Verdict:
    return [], None


def _exit(args: Sequence[Arg]) -> Verdict:
    """``exit [N]``: how a judged ``cd`` stops the command when it fails (``|| exit 1``)."""
    if len(args) > 1 or any(not arg.text.isdigit() for arg in args):
        return [], "uses `exit` with more than a status number"
    return [], None


def _which(args: Sequence[Arg]) -> Verdict:
    """``which`` looks a name with a ``/`` up as a path (it stats it): such names are reads."""
    parsed = parse_args(args, SPECS["which"])
    if parsed.unknown:
        return [], f"uses the which option {parsed.unknown[0]}"
    return [arg for arg in parsed.operands if "/" in arg.text], None


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
    "git": git_read_only,
    "echo": _anything,
    "pwd": _anything,
    "which": _which,
    "exit": _exit,
    "nl": _files("nl"),
    "tac": _files("tac"),
    "rev": _files("rev"),
    "cut": _files("cut"),
    "paste": _files("paste"),
    "uniq": uniq_files,
    "base64": base64_files,
    "tr": _anything,
    "seq": _anything,
    "true": _anything,
    "false": _anything,
    "uname": _anything,
    "whoami": _anything,
    "id": _anything,
    "expr": _anything,
    "numfmt": _anything,
    "sed": sed_read_only,
    "cd": cd_target,
    "bash": shell_script,
    "sh": shell_script,
    "dash": shell_script,
    "zsh": shell_script,
    **EXTRA_VALIDATORS,
}


def _xargs(args: Sequence[Arg]) -> Verdict:
    inner, reason = split_xargs(args)
    return ([], reason) if reason is not None else allowlisted(inner)


_VALIDATORS["xargs"] = _xargs
assert set(_VALIDATORS) == ALLOWLIST


def follow_mode(argv: Sequence[Arg]) -> Follow:
    """How far an allowlisted command follows symlinks below its operands."""
    name, args = argv[0].text, argv[1:]
    if name == "ls":
        parsed = parse_args(args, SPECS["ls"])
        return ("deep" if parsed.has("-R") else "shallow") if parsed.has("-L") else "none"
    if name in ("grep", "rg"):
        flag = "-R" if name == "grep" else "-L"
        return "deep" if parse_args(args, SPECS[name]).has(flag) else "none"
    if name == "find":
        texts = [a.text for a in args]
        return "deep" if "-L" in texts or "-follow" in texts else "none"
    return _extra_follow(name, args)


def _extra_follow(name: str, args: Sequence[Arg]) -> Follow:
    if name in ("diff", "du", "tree"):
        parsed = parse_args(args, EXTRA_SPECS[name])
        deep = {"diff": ("-r",), "du": ("-L",), "tree": ("-l",)}[name]
        return "deep" if parsed.has(*deep) else ("shallow" if name == "diff" else "none")
    return "none"


def _links_reason(
    argv: Sequence[Arg], paths: Sequence[Arg], checker: PathChecker, cwd: str
) -> str | None:
    follow = follow_mode(argv)
    if follow == "none":
        return None
    starts = [absolute(a.text, cwd) for a in paths if not a.glob] or [cwd]
    if any(start is None for start in starts) or any(a.glob for a in paths):
        return "follows symlinks below operands that cannot be checked"
    return escaping_link(
        [s for s in starts if s is not None],
        follow,
        lambda path: checker.read_outside(Arg(path), cwd),
    )


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
    if reason is None and name not in _NO_PATHS:
        paths += [arg for arg in argv[1:] if (arg.glob or arg.globbed) and arg not in paths]
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
    upstream: SimpleCommand | None = None,
) -> str | None:
    """Why ``command`` is not provably read-only and contained (None: it may be allowed).

    ``upstream``: the pipeline stage feeding its standard input (``… | xargs CMD`` needs it).
    """
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
    if inner[0].text == "cd":  # judged where bash lands: `..` removed textually first
        landing = cd_destination([a.text for a in inner[1:]], command.cwd, checker.home)
        if landing is None:
            return "changes to a directory that cannot be followed"
        paths = [Arg(landing)]
    for path in paths:
        outside = checker.read_outside(path, command.cwd or cwd)
        if outside is not None:
            return f"reads outside the workspace: {outside}"
    if inner[0].text == "xargs":
        return _xargs_reason(command, inner, upstream, checker, paths)
    return _links_reason(inner, paths, checker, command.cwd or cwd)


def _xargs_reason(
    command: SimpleCommand,
    argv: Sequence[Arg],
    upstream: SimpleCommand | None,
    checker: PathChecker,
    paths: Sequence[Arg],
) -> str | None:
    if command.cwd is None or any(r.kind == "read" for r in command.redirects):
        return "reads its items from input that is not a listing in the same directory"
    cwd = command.cwd
    reason = xargs_source_reason(upstream, cwd, lambda p: checker.read_outside(Arg(p), cwd))
    if reason is not None:
        return reason
    target, _ = split_xargs(argv[1:])
    return _links_reason(target, paths, checker, cwd)
