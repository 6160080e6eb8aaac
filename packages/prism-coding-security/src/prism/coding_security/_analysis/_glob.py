"""Pathname expansion with bash's rules, done by the policy so the rendering carries no glob.

Bash 5.2 defaults in a non-interactive shell: ``*``, ``?`` and bracket expressions (``[!x]``,
``[^x]``, ranges by code point as with ``globasciiranges``, POSIX classes in the C locale) never
match ``/`` nor a leading ``.`` unless the pattern starts with a literal ``.``; ``.`` and ``..``
are never matches (``globskipdots``); no match leaves the word as it was written (quotes
removed). Quoted characters are literal. Results are sorted by code point (``LC_COLLATE=C``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from . import _operands
from ._words import QUOTED, Chars, chars_text

__all__ = ["GlobOutside", "GlobTooLarge", "glob_chars"]

MAX_LISTED = 20_000
"""Directory entries one glob word may look at while expanding."""

_CLASSES: dict[str, Callable[[str], bool]] = {
    "alpha": lambda c: c.isascii() and c.isalpha(),
    "digit": lambda c: "0" <= c <= "9",
    "alnum": lambda c: c.isascii() and c.isalnum(),
    "upper": lambda c: "A" <= c <= "Z",
    "lower": lambda c: "a" <= c <= "z",
    "space": lambda c: c in " \t\n\r\f\v",
    "blank": lambda c: c in " \t",
    "punct": lambda c: c.isascii() and c.isprintable() and not c.isalnum() and c != " ",
    "print": lambda c: c.isascii() and c.isprintable(),
    "graph": lambda c: c.isascii() and c.isprintable() and c != " ",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
    "word": lambda c: (c.isascii() and c.isalnum()) or c == "_",
}


MAX_MATCH_STEPS = 500_000
"""Name characters one glob word may compare (the matcher is O(name x pattern))."""


class GlobOutside(Exception):
    """The expansion would look into a directory the command may not read."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self.directory = directory


class GlobTooLarge(Exception):
    """The expansion would list or return more than the bounds allow (``MAX_GLOB_MATCHES``
    paths, ``MAX_LISTED`` directory entries)."""


def _active(item: tuple[str, int], ch: str) -> bool:
    return item[0] == ch and not item[1] & QUOTED


def _class_members(name: str) -> str:
    test = _CLASSES.get(name)
    if test is None:
        return ""
    return "".join(chr(code) for code in range(128) if test(chr(code)))


MAX_BRACKETS = 256
"""Unquoted ``[`` one glob word may hold: each may open a bracket expression that is scanned to
its end, so a word of many unclosed ``[`` costs (brackets x length); more is refused as dynamic."""


class _Closes:
    """For each position, where the next ``:]``/``.]``/``=]`` starts (one right-to-left pass),
    so a bracket's class, equivalence or collating element is closed in O(1)."""

    __slots__ = ("_next",)

    def __init__(self, text: str) -> None:
        self._next: dict[str, list[int]] = {}
        for kind in ":=.":
            table = [-1] * (len(text) + 1)
            for at in range(len(text) - 2, -1, -1):
                table[at] = at if text[at] == kind and text[at + 1] == "]" else table[at + 1]
            self._next[kind] = table

    def find(self, kind: str, start: int) -> int:
        table = self._next[kind]
        return table[start] if start < len(table) else -1


def _bracket(
    chars: Chars, start: int, closes: _Closes, spend: Callable[[int], None]
) -> tuple[str, int] | None:
    """A regex class for the bracket expression opening at ``start``; None when it is no bracket.
    Every character scanned is counted through ``spend``."""
    index = start + 1
    negate = index < len(chars) and chars[index][0] in "!^" and not chars[index][1] & QUOTED
    if negate:
        index += 1
    members: list[str] = []
    first = True
    spend(len(chars) - index + 1)
    while index < len(chars):
        ch, flags = chars[index]
        if ch == "]" and not flags & QUOTED and not first:
            body = "".join(members)
            if not body:
                return ("[^/]" if negate else "(?!)"), index + 1
            return ("[^" if negate else "[") + body + "]", index + 1
        first = False
        if ch == "[" and not flags & QUOTED and index + 1 < len(chars):
            kind = chars[index + 1][0]
            if kind in ":=." and not chars[index + 1][1] & QUOTED:
                close = closes.find(kind, index + 2)
                if close >= 0:
                    name = chars_text(chars[index + 2 : close])
                    text = _class_members(name) if kind == ":" else name
                    members.append("".join(re.escape(c) for c in text))
                    index = close + 2
                    continue
        if (
            index + 2 < len(chars)
            and _active(chars[index + 1], "-")
            and not _active(chars[index + 2], "]")
        ):
            low, high = ch, chars[index + 2][0]
            if low <= high:
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
            continue
        members.append(re.escape(ch))
        index += 1
    return None


def _unbounded(_amount: int) -> None:
    """No step budget (a caller that bounds the work itself)."""


def _component_tokens(
    chars: Chars, spend: Callable[[int], None] = _unbounded
) -> list[str | re.Pattern[str] | None]:
    tokens: list[str | re.Pattern[str] | None] = []
    closes = _Closes(chars_text(chars))
    index = 0
    while index < len(chars):
        ch, flags = chars[index]
        if flags & QUOTED or ch not in "*?[":
            tokens.append(ch)
        elif ch == "*":
            if not tokens or tokens[-1] is not None:
                tokens.append(None)  # `**` in a component is one `*`
        elif ch == "?":
            tokens.append(_ANY)
        else:
            found = _bracket(chars, index, closes, spend)
            if found is None:
                tokens.append(ch)
            else:
                tokens.append(re.compile(found[0], re.DOTALL))
                index = found[1]
                continue
        index += 1
    return tokens


_ANY = re.compile("[^/]", re.DOTALL)


def _one(token: str | re.Pattern[str] | None, ch: str) -> bool:
    if token is None or isinstance(token, str):
        return token == ch
    return token.fullmatch(ch) is not None


def _matches(tokens: list[str | re.Pattern[str] | None], name: str, steps: list[int]) -> bool:
    """Glob match in O(len(name) * len(tokens)): on a mismatch only the last `*` grows by one
    character (a later `*` can absorb whatever an earlier one could), so nothing backtracks
    further. ``steps`` is the remaining budget; raises ``GlobTooLarge`` when it runs out."""
    at = pos = 0
    star, mark = -1, 0
    while pos < len(name):
        steps[0] -= 1
        if steps[0] < 0:
            raise GlobTooLarge
        if at < len(tokens) and tokens[at] is None:
            star, mark, at = at, pos, at + 1
        elif at < len(tokens) and _one(tokens[at], name[pos]):
            at, pos = at + 1, pos + 1
        elif star >= 0:
            mark += 1
            at, pos = star + 1, mark
        else:
            return False
    return all(token is None for token in tokens[at:])


def _is_pattern(chars: Chars) -> bool:
    return any(ch in "*?[" and not flags & QUOTED for ch, flags in chars)


def _components(chars: Chars) -> list[Chars]:
    parts: list[Chars] = [[]]
    for item in chars:
        if item[0] == "/":
            parts.append([])
        else:
            parts[-1].append(item)
    return parts


class _Walk:
    def __init__(
        self, cwd: str, listable: Callable[[str], bool], spend: Callable[[int], None]
    ) -> None:
        self.cwd = cwd
        self.listed = 0
        self.steps = [MAX_MATCH_STEPS]
        self.listable = listable
        self.spend = spend
        self.tokens: dict[int, list[str | re.Pattern[str] | None]] = {}

    def _enter(self, prefix: str) -> None:
        """Refuse (before any look) a directory outside what the command may read."""
        directory = os.path.realpath(os.path.join(self.cwd, prefix) if prefix else self.cwd)
        if not self.listable(directory):
            raise GlobOutside(directory)

    def _list(self, prefix: str) -> list[str]:
        directory = os.path.join(self.cwd, prefix) if prefix else self.cwd
        try:
            names = os.listdir(directory or "/")
        except OSError:
            return []
        self.listed += len(names)
        if self.listed > MAX_LISTED:
            raise GlobTooLarge
        return names

    def expand(self, prefix: str, parts: list[Chars]) -> list[str]:
        if not parts:
            return [prefix]
        self._enter(prefix)
        head, rest = parts[0], parts[1:]
        if not _is_pattern(head):
            path = prefix + chars_text(head) + ("/" if rest else "")
            full = os.path.join(self.cwd, path)
            if not (os.path.isdir(full) if rest else os.path.lexists(full)):
                return []
            return self.expand(path, rest)
        # After a globbed component bash joins with one `/` however many were written.
        empties = next((i for i, part in enumerate(rest) if part), len(rest))
        rest = rest[empties:] or ([[]] if empties else [])
        tokens = self.tokens.get(id(head))
        if tokens is None:  # once per component, however many directories it is matched in
            tokens = self.tokens[id(head)] = _component_tokens(head, self.spend)
        explicit_dot = bool(head) and head[0][0] == "."
        found: list[str] = []
        for name in sorted(self._list(prefix)):
            if name in (".", "..") or (name.startswith(".") and not explicit_dot):
                continue
            before = self.steps[0]
            matched = _matches(tokens, name, self.steps)
            self.spend(before - self.steps[0] + 1)
            if not matched:
                continue
            if rest and not os.path.isdir(os.path.join(self.cwd, prefix + name)):
                continue
            found.extend(self.expand(prefix + name + ("/" if rest else ""), rest))
            if len(found) > _operands.MAX_GLOB_MATCHES:
                raise GlobTooLarge
        return found


def glob_chars(
    chars: Chars, cwd: str, listable: Callable[[str], bool], spend: Callable[[int], None]
) -> list[str]:
    """The paths bash would expand the field ``chars`` to in ``cwd``; ``[text]`` when the field
    is no pattern or nothing matches. Raises ``GlobTooLarge`` past the bounds (``MAX_BRACKETS``
    too), ``GlobOutside`` when it would look into a directory ``listable`` refuses (outside the
    roots, a secret).
    Every name compared is counted through ``spend`` (the analysis step budget)."""
    if not _is_pattern(chars):
        return [chars_text(chars)]
    if sum(1 for ch, flags in chars if ch == "[" and not flags & QUOTED) > MAX_BRACKETS:
        raise GlobTooLarge(f"a glob with more than {MAX_BRACKETS} `[` (too costly to check)")
    parts = _components(chars)
    absolute = not parts[0] and len(parts) > 1
    walk = _Walk("/" if absolute else cwd, listable, spend)
    prefix = "/" if absolute else ""
    if absolute:
        parts = parts[1:]
    # `a//b` after a literal component and a trailing `/` keep their empty components.
    found = walk.expand(prefix, parts)
    return found or [chars_text(chars)]
