"""Resolve executables and see through wrappers: ``sudo env timeout xargs nice nohup …``.

``unwrap`` yields every program a simple command would run (the wrapper itself and what it
wraps, ``find -exec`` commands, ``xargs`` commands), plus strings that are code for a shell
(``bash -c``, ``eval``, ``su -c``, ``watch``, ``trap``, ``alias``) to be parsed again, and string
literals of interpreter one-liners to be scanned for denied commands.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._operands import expand
from ._words import UNKNOWN, Arg, names

__all__ = [
    "INTERPRETERS",
    "SHELLS",
    "Invocation",
    "Reparse",
    "Unwrapped",
    "canonical_name",
    "empty_expansion_variants",
    "glob_name_variants",
    "interpreter_code",
    "literals",
    "shell_mode",
]

SHELLS = names("sh bash zsh dash ksh mksh ash yash posh fish csh tcsh rbash ksh93 busybox-sh")
INTERPRETERS = names(
    "python pypy perl ruby node nodejs deno bun php lua luajit tclsh wish rscript osascript "
    "pwsh powershell jshell irb"
)
_CODE_OPTIONS = {
    "python": ("-c",),
    "pypy": ("-c",),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "bun": ("-e", "--eval"),
    "php": ("-r", "-B", "-R", "-E"),
    "lua": ("-e",),
    "luajit": ("-e",),
    "rscript": ("-e",),
    "osascript": ("-e",),
    "pwsh": ("-c", "-command", "-Command"),
    "powershell": ("-c", "-command", "-Command"),
}
_VERSIONED = re.compile(r"^(python|pypy|perl|ruby|php|node|lua|pip|tclsh|wish)[0-9.]*$")
_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`\\]|\\.)*`", re.S)
_PERL_CODE = re.compile(r"-[a-zA-Z]*[eE]")
MAX_CHAIN = 16
MAX_LITERALS = 64


def canonical_name(text: str) -> str:
    """Basename, NFKC-folded (``ｒｍ`` is ``rm``), case-folded, interpreter versions dropped."""
    base = text.rstrip("/").rsplit("/", 1)[-1] if "/" in text.rstrip("/") else text
    name = unicodedata.normalize("NFKC", base).casefold()
    return _VERSIONED.sub(r"\1", name)


@dataclass(frozen=True, slots=True)
class Invocation:
    """One program a simple command runs, possibly inside wrappers."""

    command: int
    argv: tuple[Arg, ...]
    name: str
    wrappers: tuple[str, ...] = ()
    cwd: str | None = None
    piped: bool = False

    @property
    def args(self) -> tuple[Arg, ...]:
        return self.argv[1:]


@dataclass(frozen=True, slots=True)
class Reparse:
    """Text that a shell will run as code, with where it came from."""

    text: str
    origin: str
    command: int
    from_output: tuple[int, ...] = ()


@dataclass(slots=True)
class Unwrapped:
    invocations: list[Invocation] = field(default_factory=list)
    reparse: list[Reparse] = field(default_factory=list)
    literals: list[tuple[str, int]] = field(default_factory=list)


def shell_mode(args: Sequence[Arg]) -> tuple[str, Arg | None, list[Arg]]:
    """Classify a shell's arguments: ("command", code) / ("script", file) / ("stdin", None)."""
    command = stdin = False
    index = 0
    while index < len(args):
        text = args[index].text
        if text == "--" or text == "-":
            index += 1
            break
        if text.startswith("--"):
            index += 2 if text in ("--rcfile", "--init-file") else 1
            continue
        if len(text) > 1 and text[0] in "-+":
            letters = text[1:]
            command = command or "c" in letters
            stdin = stdin or "s" in letters
            index += 1 + sum(1 for letter in letters if letter in "oO")
            continue
        break
    rest = list(args[index:])
    if command:
        return "command", (rest[0] if rest else None), rest[1:]
    if stdin or not rest:
        return "stdin", None, rest
    return "script", rest[0], rest[1:]


def interpreter_code(name: str, args: Sequence[Arg]) -> tuple[list[Arg], bool]:
    """Code strings given on the command line, and whether the program reads code from stdin."""
    options = _CODE_OPTIONS.get(name, ())
    python = name in ("python", "pypy")
    code: list[Arg] = []
    index = 0
    while index < len(args):
        text = args[index].text
        if text in options or (name == "perl" and _PERL_CODE.fullmatch(text)):
            if index + 1 < len(args):
                code.append(args[index + 1])
            index += 2
            continue
        if python and text.startswith("-c") and len(text) > 2:
            code.append(Arg(text[2:], subst=args[index].subst))
        elif python and text in ("-W", "-X", "--check-hash-based-pycs"):
            index += 1
        elif text == "-":
            return code, not code
        elif (python and text == "-m") or not text.startswith("-"):
            return code, False
        index += 1
    return code, not code


def literals(code: str) -> list[str]:
    """String literals (quoted or backticked) in interpreter code, unescaped loosely."""
    found = []
    for match in _LITERAL.finditer(code):
        body = match.group(0)[1:-1]
        found.append(re.sub(r"\\(.)", r"\1", body))
        if len(found) >= MAX_LITERALS:
            break
    return found


def empty_expansion_variants(argv: list[Arg]) -> list[list[Arg]]:
    """The command lines that run if unknown expansions in the command name are empty."""
    variants: list[list[Arg]] = []
    if argv and UNKNOWN in argv[0].text and argv[0].text.strip(UNKNOWN):
        variants.append([Arg(argv[0].text.replace(UNKNOWN, ""), argv[0].glob), *argv[1:]])
    rest = argv
    while len(rest) > 1 and len(variants) < 4 and rest[0].text.strip(UNKNOWN) == "":
        rest = rest[1:]
        variants.append(rest)
    return variants


def glob_name_variants(argv: list[Arg], cwd: str | None) -> list[list[Arg]]:
    """``* -rf /`` runs the first matching file name as the command."""
    if not argv or not argv[0].glob or cwd is None:
        return []
    matches = expand(argv[0], cwd)
    names = sorted(m for m in matches or () if m != argv[0].text)[:16]
    return [[Arg(os.path.basename(name)), *argv[1:]] for name in names]
