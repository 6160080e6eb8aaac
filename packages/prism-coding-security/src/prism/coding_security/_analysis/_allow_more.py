"""Allowlist validators for the smaller read-only commands (``uniq``, ``base64``, ``cd``,
``bash -c``): each returns the path operands to check, or why it is not read-only."""

from __future__ import annotations

from collections.abc import Sequence

from ._options import parse_args
from ._specs import SPECS
from ._words import Arg, names

__all__ = ["base64_files", "cd_target", "shell_script", "uniq_files"]

Verdict = tuple[list[Arg], str | None]
_SHELL_FLAGS = names("-c -l -lc -cl --login --noprofile --norc")


def uniq_files(args: Sequence[Arg]) -> Verdict:
    operands = list(parse_args(args, SPECS["uniq"]).operands)
    if len(operands) > 1:
        return [], "writes its output to a file (uniq INPUT OUTPUT)"
    return operands, None


def base64_files(args: Sequence[Arg]) -> Verdict:
    if any(a.text == "-o" or a.text.startswith(("-o", "--output")) for a in args):
        return [], "writes a file (base64 -o/--output)"
    return list(parse_args(args, SPECS["base64"]).operands), None


def cd_target(args: Sequence[Arg]) -> Verdict:
    operands = [a for a in args if a.text not in ("-L", "-P", "--")]
    if len(operands) != 1 or operands[0].text == "-" or operands[0].text.startswith("-"):
        return [], "changes to a directory that cannot be followed (`cd` needs one directory)"
    return operands, None


def shell_script(args: Sequence[Arg]) -> Verdict:
    """``bash -c SCRIPT`` / ``bash -lc SCRIPT``: the script is parsed and judged on its own."""
    flags = [a.text for a in args[:-1]]
    if not args or not flags or any(f not in _SHELL_FLAGS for f in flags):
        return [], "runs a shell other than `-c SCRIPT` / `-lc SCRIPT`"
    if not any("c" in f for f in flags if not f.startswith("--")):
        return [], "runs a shell other than `-c SCRIPT` / `-lc SCRIPT`"
    if args[-1].text.startswith("-") or args[-1].glob:
        return [], "runs a shell without a literal script"
    return [], None
