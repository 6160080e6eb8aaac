"""The exact fields of a word, expanded in bash's order: what the rendering will pass literally.

Brace expansion runs first, so its results are read again: an unquoted ``$`` or backtick that
a brace made (``{x,$}{_@P}`` → ``${_@P}``) starts an expansion bash would perform, and the word
is dynamic; a leading ``~`` is expanded (home only). Field splitting of the known values
(``$HOME``, ``$PWD``) follows, then pathname expansion by the policy (``_glob``). A glob result
that starts with ``-`` is passed as ``./-…`` so that no file name can become an option.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._glob import GlobOutside, GlobTooLarge, glob_chars
from ._words import (
    EXPANDED,
    QUOTED,
    Arg,
    Chars,
    brace_expand,
    chars_text,
    has_glob,
    lit,
    split_fields,
)

__all__ = ["EXPANDS_AFTER_DOLLAR", "ExactFields", "exact_fields"]

EXPANDS_AFTER_DOLLAR = frozenset("!@#?$*-_{([" + "0123456789")
"""Characters after an unquoted ``$`` that make it an expansion (a name letter does too)."""


@dataclass(frozen=True, slots=True)
class ExactFields:
    """The fields of one word (None when not known) and why they are not."""

    args: tuple[Arg, ...] | None
    dynamic: str | None = None


def _reread(chars: Chars) -> str | None:
    """Why a brace result holds an expansion bash will still perform (None: it holds none)."""
    for index, (ch, flags) in enumerate(chars):
        if flags & EXPANDED and index + 1 < len(chars):
            after, after_flags = chars[index + 1]
            if not after_flags and (after.isalnum() or after == "_"):
                # `$PWD{a,b}`: bash expands braces first, so the name becomes `PWDa`.
                return "a variable name that a brace expansion continues"
        if flags:
            continue
        if ch == "`":
            return "a backtick that a brace expansion produced (bash runs it)"
        if ch == "$" and index + 1 < len(chars):
            after, after_flags = chars[index + 1]
            if after_flags or after in EXPANDS_AFTER_DOLLAR or after.isalpha():
                return "a `$` expansion that a brace expansion produced (bash expands it)"
    return None


def _tilde(chars: Chars, home: str | None) -> Chars | None:
    """A leading unquoted ``~`` a brace expansion produced: ``~`` / ``~/…`` is the home."""
    if not chars or chars[0] != ("~", 0):
        return chars
    if home is None or not (len(chars) == 1 or chars[1] == ("/", 0)):
        return None
    return lit(home, QUOTED) + chars[1:]


def _operand(path: str) -> str:
    return "./" + path if path.startswith("-") else path


def _quoted_brace(chars: Chars) -> bool:
    """An unquoted ``{`` with a quoted ``{`` ``}`` or ``,`` in the same word: bash's brace
    matching there (``{a\\,b}\\{a,b}`` → ``a,b}{a b``) is not modelled."""
    return any(ch == "{" and not flags & QUOTED for ch, flags in chars) and any(
        ch in "{}," and flags & QUOTED for ch, flags in chars
    )


def exact_fields(
    chars: Chars,
    ifs: str,
    subst: tuple[int, ...],
    procsub: bool,
    *,
    cwd: str | None,
    home: str | None,
    raw: str,
    listable: Callable[[str], bool],
    spend: Callable[[int], None],
) -> ExactFields:
    """Brace → re-read → field splitting → pathname expansion, for the exact view."""
    result: list[Arg] = []
    for field in split_fields(chars, ifs):
        if _quoted_brace(field):
            return ExactFields(None, "a brace expansion next to quoted braces or commas")
        expanded = brace_expand(field)
        if expanded is None:
            return ExactFields(None, "a brace expansion with too many words")
        for item in expanded:
            if not item and item is not field:
                if any(quote in raw for quote in "'\"\\"):
                    return ExactFields(None, "an empty brace alternative next to quotes")
                continue  # bash drops an empty unquoted brace result
            if len(expanded) > 1 or item is not field:
                why = _reread(item)
                if why is not None:
                    return ExactFields(None, why)
                tilde = _tilde(item, home)
                if tilde is None:
                    return ExactFields(None, "a `~` that a brace expansion produced")
                item = tilde
            if not has_glob(item):
                result.append(Arg(chars_text(item), False, subst, procsub))
                continue
            if cwd is None:
                return ExactFields(None, "a glob after a directory change that cannot be followed")
            try:
                paths = glob_chars(item, cwd, listable, spend)
            except GlobOutside as outside:
                return ExactFields(None, f"a glob that looks into {outside.directory}, outside")
            except GlobTooLarge as large:
                why = str(large) or "a glob that matches more files than can be checked"
                return ExactFields(None, why)
            result.extend(
                Arg(_operand(path), False, subst, procsub, globbed=True) for path in paths
            )
    return ExactFields(tuple(result))
