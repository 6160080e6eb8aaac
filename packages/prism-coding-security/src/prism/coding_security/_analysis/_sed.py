"""GNU sed: in-place targets, ``w``/``W`` output files, ``r``/``R`` inputs, and ``e`` execution.

``sed -n '1w /etc/motd' f`` writes a file and ``sed 's/x/id/e' f`` runs a command, though neither
looks like it; the script is scanned command by command. A script that cannot be read (``-f
file``) yields nothing here: sed is not allowlisted, so it still needs approval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ._options import parse_args
from ._specs import SPECS
from ._words import Arg

__all__ = ["SedEffects", "scan_script", "sed_effects"]

_SIMPLE = set("=dDgGhHnNpPxzFlLqQ{}")
_LABELLED = set("btT:")


@dataclass(slots=True)
class SedEffects:
    writes: list[Arg] = field(default_factory=list)
    reads: list[Arg] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)


def _skip_regex(script: str, index: int, delimiter: str) -> int:
    """Index just past the closing ``delimiter`` (backslash escapes honoured)."""
    while index < len(script):
        ch = script[index]
        if ch == "\\":
            index += 2
            continue
        if ch == "\n" or ch == delimiter:
            return index + 1
        index += 1
    return index


def _address(script: str, index: int) -> int:
    for _ in range(2):
        while index < len(script) and script[index] in " \t":
            index += 1
        if index < len(script) and script[index] == "/":
            index = _skip_regex(script, index + 1, "/")
        elif index + 1 < len(script) and script[index] == "\\":
            index = _skip_regex(script, index + 2, script[index + 1])
        else:
            while index < len(script) and (script[index].isdigit() or script[index] in "$~+"):
                index += 1
        while index < len(script) and script[index] in "IM":
            index += 1
        if index < len(script) and script[index] == ",":
            index += 1
            continue
        break
    while index < len(script) and script[index] in " \t!":
        index += 1
    return index


def _to_line_end(script: str, index: int) -> tuple[str, int]:
    end = script.find("\n", index)
    end = len(script) if end < 0 else end
    return script[index:end].strip(), end


def _substitute(script: str, index: int, out: SedEffects) -> int:
    if index >= len(script):
        return index
    delimiter = script[index]
    index = _skip_regex(script, index + 1, delimiter)
    index = _skip_regex(script, index, delimiter)
    while index < len(script) and script[index] not in ";\n}":
        flag = script[index]
        if flag == "e":
            out.deny.append("runs the replacement as a shell command (sed `e` flag)")
        if flag == "w":
            name, index = _to_line_end(script, index + 1)
            out.writes.append(Arg(name))
            return index
        index += 1
    return index


def scan_script(script: str, out: SedEffects) -> None:
    """Record what one sed script writes, reads or executes."""
    index = 0
    while index < len(script):
        index = _address(script, index)
        if index >= len(script):
            return
        command = script[index]
        index += 1
        if command in " \t\n;":
            continue
        if command == "#":
            _, index = _to_line_end(script, index)
        elif command == "s":
            index = _substitute(script, index, out)
        elif command == "y":
            delimiter = script[index] if index < len(script) else "/"
            index = _skip_regex(script, _skip_regex(script, index + 1, delimiter), delimiter)
        elif command in "wW":
            name, index = _to_line_end(script, index)
            out.writes.append(Arg(name))
        elif command in "rR":
            name, index = _to_line_end(script, index)
            out.reads.append(Arg(name))
        elif command == "e":
            out.deny.append("runs a shell command (sed `e` command)")
            _, index = _to_line_end(script, index)
        elif command in "aic":
            _, index = _to_line_end(script, index)
        elif command in _LABELLED:
            while index < len(script) and script[index] not in ";\n":
                index += 1
        elif command in "{}":
            continue
        elif command == "v" or command in _SIMPLE:
            while index < len(script) and script[index] not in ";\n}":
                index += 1
        else:
            return


def sed_effects(args: Sequence[Arg]) -> SedEffects:
    """Files written (``-i`` operands, ``w`` files), files read, and execution via ``e``."""
    out = SedEffects()
    parsed = parse_args(args, SPECS["sed"])
    scripts = parsed.values("-e")
    operands = list(parsed.operands)
    if not scripts and not parsed.values("-f") and operands:
        scripts = [operands.pop(0)]
    if parsed.has("--sandbox"):
        scripts = []
    for script in scripts:
        scan_script(script.text, out)
    out.reads.extend(parsed.values("-f"))
    if parsed.has("-i"):
        out.writes.extend(operands)
    else:
        out.reads.extend(operands)
    return out
