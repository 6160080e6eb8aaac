"""Allowlist validators for the read-only commands added in issue 24: ``sort``, ``diff``,
``du``, ``file``, ``tree``, ``env``, ``jq`` and ``awk``. Each returns the path operands to check,
or why the call is not provably read-only (docs/security.md has the table)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ._options import parse_args
from ._specs_more import EXTRA_SPECS
from ._words import Arg, names

__all__ = ["EXTRA_VALIDATORS"]

Verdict = tuple[list[Arg], str | None]
_REFUSED = {
    "sort": {
        "-o": "writes a file (sort -o/--output)",
        "--output": "writes a file (sort -o/--output)",
        "--compress-program": "runs a program (sort --compress-program)",
        "-T": "writes temporary files in a chosen directory (sort -T)",
        "--temporary-directory": "writes temporary files in a chosen directory (sort -T)",
        "--files0-from": "reads file names from a list (--files0-from)",
    },
    "diff": {"-l": "runs `pr` (diff -l/--paginate)", "--paginate": "runs `pr` (diff --paginate)"},
    "du": {"--files0-from": "reads file names from a list (--files0-from)"},
    "file": {
        "-C": "writes a compiled magic file (file -C)",
        "-z": "runs decompressors (file -z)",
        "-Z": "runs decompressors (file -Z)",
        "-S": "turns off file's own sandbox (file -S)",
        "-p": "changes access times (file -p)",
        "-f": "reads file names from a list (file -f)",
        "-m": "reads a magic file (file -m)",
    },
    "tree": {
        "-o": "writes a file (tree -o)",
        "-R": "writes 00Tree.html files (tree -R)",
        "--fromfile": "reads the tree from a file (tree --fromfile)",
        "--infofile": "reads an info file (tree --infofile)",
    },
}
_PATH_VALUES = {
    "sort": ("--random-source",),
    "diff": ("-X", "--from-file", "--to-file"),
    "du": ("-X",),
}


def _options_checked(name: str) -> Callable[[Sequence[Arg]], Verdict]:
    """Operands are files; refused options are named; any option not in the table refuses."""

    def check(args: Sequence[Arg]) -> Verdict:
        for arg in args:
            if arg.text == "--":
                break
            option = arg.text.split("=", 1)[0]
            for refused, why in _REFUSED.get(name, {}).items():
                if option == refused or (len(refused) == 2 and _cluster_has(arg.text, refused)):
                    return [], why
        parsed = parse_args(args, EXTRA_SPECS[name])
        if parsed.unknown:
            return [], f"uses an option {name} does not document as read-only ({parsed.unknown[0]})"
        extra = [v for option in _PATH_VALUES.get(name, ()) for v in parsed.values(option)]
        return list(parsed.operands) + extra, None

    return check


def _cluster_has(text: str, short: str) -> bool:
    return text.startswith("-") and not text.startswith("--") and short[1] in text[1:]


def env_print(args: Sequence[Arg]) -> Verdict:
    """Only a bare ``env`` (print the environment) is read-only; anything else runs or changes."""
    if args:
        return [], "runs a command or changes the environment (only a bare `env` prints it)"
    return [], None


_JQ_FLAGS = names(
    "-n -r -j -a -c -C -M -S -e -s -R -h -V --null-input --raw-output --raw-output0 "
    "--join-output --ascii-output --compact-output --color-output --monochrome-output "
    "--sort-keys --exit-status --slurp --raw-input --tab --seq --stream --stream-errors "
    "--unbuffered --help --version --args --jsonargs"
)
_JQ_SHORT = frozenset("nrjacCMSesRhV")
_JQ_TWO_VALUES = names("--arg --argjson --rawfile --slurpfile")
_JQ_CODE = re.compile(r"\b(import|include|modulemeta|get_search_list)\b")


def jq_files(args: Sequence[Arg]) -> Verdict:
    """``jq [flags] FILTER [FILE…]``: no program file, no modules, no library path."""
    operands: list[Arg] = []
    paths: list[Arg] = []
    index = 0
    while index < len(args):
        text = args[index].text
        if text == "--":
            operands.extend(args[index + 1 :])
            break
        if text in _JQ_TWO_VALUES:
            if text in ("--rawfile", "--slurpfile") and index + 2 < len(args):
                paths.append(args[index + 2])
            index += 3
            continue
        if text == "--indent":
            index += 2
            continue
        if text.startswith("-") and text != "-":
            short = not text.startswith("--") and set(text[1:]) <= _JQ_SHORT
            if text not in _JQ_FLAGS and not short:
                return [], f"uses the jq option {text} (program files, modules and library paths)"
        else:
            operands.append(args[index])
        index += 1
    if not operands:
        return paths, None
    program, files = operands[0], operands[1:]
    if program.glob or _JQ_CODE.search(program.text):
        return [], "runs a jq program that loads modules or names its input files"
    return paths + files, None


_AWK_CODE = re.compile(
    r"\b(system|getline|close|fflush|ARGV|ARGC|ENVIRON|PROCINFO|SYMTAB|FUNCTAB)\b|[|>@`]"
)


def awk_files(args: Sequence[Arg]) -> Verdict:
    """``awk [-F SEP] [-v NAME=VALUE]… 'PROGRAM' [FILE…]`` with a program that only reads its
    input and prints to standard output."""
    index = 0
    checked: list[str] = []
    while index < len(args) and args[index].text.startswith("-") and args[index].text != "-":
        text = args[index].text
        if text == "--":
            index += 1
            break
        if text in ("-F", "-v") and index + 1 < len(args):
            checked.append(args[index + 1].text)
            index += 2
        elif text.startswith(("-F", "-v")) and len(text) > 2:
            checked.append(text[2:])
            index += 1
        else:
            return [], f"uses the awk option {text} (program files, extensions or output files)"
    if index >= len(args):
        return [], "has no awk program"
    program = args[index]
    for text in (program.text, *checked):
        if "\\\n" in text or "\\\r" in text:
            return [], "runs an awk program with a line continuation (it can join words)"
        found = _AWK_CODE.search(text)
        if found is not None or program.glob:
            what = found.group(0) if found is not None else "a glob"
            return (
                [],
                f"runs an awk program that could run, write or read beyond its input ({what})",
            )
    return list(args[index + 1 :]), None


EXTRA_VALIDATORS: dict[str, Callable[[Sequence[Arg]], Verdict]] = {
    "sort": _options_checked("sort"),
    "diff": _options_checked("diff"),
    "du": _options_checked("du"),
    "file": _options_checked("file"),
    "tree": _options_checked("tree"),
    "env": env_print,
    "jq": jq_files,
    "awk": awk_files,
}
