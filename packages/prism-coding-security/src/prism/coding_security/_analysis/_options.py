"""Semantic option parsing: ``-rf`` = ``-fr`` = ``-r -f`` = ``--recursive --force`` (getopt rules).

Short clusters are split, a short option that takes a value eats the rest of its cluster or the
next word, ``--name=value`` and ``--name value`` are both read, GNU unique prefixes of long options
(``--recur``) resolve, aliases map to one canonical spelling, and ``--`` ends options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ._words import Arg

__all__ = ["OptionSpec", "ParsedArgs", "parse_args"]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """What a command's options look like. Canonical names are ``-x`` or ``--long-name``."""

    flags: str = ""
    values: str = ""
    attached: str = ""
    """Short options whose optional value can only be attached (``-i.bak``, ``-i{}``)."""
    long_flags: Mapping[str, str] = field(default_factory=dict)
    long_values: Mapping[str, str] = field(default_factory=dict)
    long_optional: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    permute: bool = True
    numeric: bool = False
    abbreviations: bool = True


@dataclass(frozen=True, slots=True)
class ParsedArgs:
    """Options (canonical, in order, with values) and operands of one command line."""

    options: tuple[tuple[str, Arg | None], ...]
    operands: tuple[Arg, ...]
    unknown: tuple[str, ...] = ()
    rest: int = 0
    """Index of the first word not consumed (where a wrapped command starts)."""

    @property
    def flags(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.options)

    def values(self, name: str) -> list[Arg]:
        return [value for option, value in self.options if option == name and value is not None]

    def has(self, *names: str) -> bool:
        present = self.flags
        return any(name in present for name in names)


def _resolve_long(name: str, spec: OptionSpec) -> tuple[str, str] | None:
    """Return (kind, canonical) for a long option name, honouring unique prefixes."""
    for kind, table in (
        ("flag", spec.long_flags),
        ("value", spec.long_values),
        ("optional", spec.long_optional),
    ):
        if name in table:
            return kind, table[name]
    if not spec.abbreviations or len(name) < 2:
        return None
    matches = {
        (kind, table[candidate])
        for kind, table in (
            ("flag", spec.long_flags),
            ("value", spec.long_values),
            ("optional", spec.long_optional),
        )
        for candidate in table
        if candidate.startswith(name)
    }
    return matches.pop() if len(matches) == 1 else None


class _Parser:
    def __init__(self, args: Sequence[Arg], spec: OptionSpec, stop_at_operand: bool) -> None:
        self.args = args
        self.spec = spec
        self.stop = stop_at_operand or not spec.permute
        self.options: list[tuple[str, Arg | None]] = []
        self.operands: list[Arg] = []
        self.unknown: list[str] = []

    def run(self) -> ParsedArgs:
        index = 0
        while index < len(self.args):
            word = self.args[index]
            text = word.text
            if text == "--":
                index += 1
                if not self.stop:
                    self.operands.extend(self.args[index:])
                    index = len(self.args)
                break
            if text.startswith("--") and len(text) > 2:
                index = self._long(index)
            elif text.startswith("-") and len(text) > 1:
                index = self._short(index)
            elif self.stop:
                break
            else:
                self.operands.append(word)
                index += 1
        return ParsedArgs(tuple(self.options), tuple(self.operands), tuple(self.unknown), index)

    def _next(self, index: int) -> tuple[Arg | None, int]:
        if index + 1 < len(self.args):
            return self.args[index + 1], index + 2
        return None, index + 1

    def _long(self, index: int) -> int:
        word = self.args[index]
        name, eq, value = word.text[2:].partition("=")
        resolved = _resolve_long(name, self.spec)
        attached = Arg(value, word.glob, word.subst) if eq else None
        if resolved is None:
            self.unknown.append("--" + name)
            self.options.append(("--" + name, attached))
            return index + 1
        kind, canonical = resolved
        if kind == "value" and attached is None:
            attached, after = self._next(index)
            self.options.append((canonical, attached))
            return after
        self.options.append((canonical, attached))
        return index + 1

    def _short(self, index: int) -> int:
        word = self.args[index]
        text = word.text
        spec = self.spec
        if spec.numeric and text[1:].isdigit():
            self.options.append(("-#", Arg(text[1:])))
            return index + 1
        position = 1
        while position < len(text):
            letter = spec.aliases.get(text[position], text[position])
            canonical = "-" + letter
            if letter in spec.attached:
                rest = text[position + 1 :]
                self.options.append((canonical, Arg(rest, word.glob, word.subst) if rest else None))
                return index + 1
            if text[position] in spec.values or letter in spec.values:
                rest = text[position + 1 :]
                if rest:
                    self.options.append((canonical, Arg(rest, word.glob, word.subst)))
                    return index + 1
                value, after = self._next(index)
                self.options.append((canonical, value))
                return after
            if text[position] not in spec.flags and letter not in spec.flags:
                self.unknown.append(canonical)
            self.options.append((canonical, None))
            position += 1
        return index + 1


def parse_args(
    args: Sequence[Arg], spec: OptionSpec, *, stop_at_operand: bool = False
) -> ParsedArgs:
    """Parse ``args`` (without the command name) the way getopt_long would."""
    return _Parser(args, spec, stop_at_operand).run()
