"""``… | xargs CMD``: allowed only when every item xargs can read is a name a listing printed.

The items are not in the command line, so they are bounded by their source: the previous stage
must be ``ls`` (names only, no long format) or ``find`` (no ``-printf``/``-ls``), in the same
directory, with its own operands checked like any read. Every entry it can list is walked
(bounded): no name may start with ``-`` or hold blanks, quotes or backslashes (xargs would make
an option or split it), and no symlink there (or, for ``ls``'s bare names, in the working
directory) may lead outside the roots. ``CMD`` must be a plain reader (``XARGS_TARGETS``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from .._walk import WalkLimitError, bounded_entries
from ._links import MAX_LINK_WALK
from ._model import SimpleCommand
from ._operands import absolute
from ._options import parse_args
from ._specs import SPECS
from ._words import Arg, names

__all__ = ["XARGS_TARGETS", "split_xargs", "xargs_source_reason"]

XARGS_TARGETS = names("cat head tail wc ls stat nl file grep echo du sort")
_XARGS_OK = names("-0 -r -t -x -n -L -s -P")
"""Not ``-d``/``--delimiter``: it splits items inside names (``aQ--opt``), which the name
checks below do not model."""
_LS_NAMES_ONLY = names("-1 -A -r -t -S -X -v -U -R -p -F -d")
"""Not ``-a``/``--all`` nor ``-f`` (which implies it): they list ``.`` and ``..``, and xargs would
hand ``..`` (the parent of the working directory) to a recursive reader. ``-A`` omits both."""
_DOTS = frozenset((".", ".."))
_FIND_PRINTS = names("-printf -fprintf -ls -fls")
_UNSAFE_NAME = frozenset("'\"\\")


def split_xargs(args: Sequence[Arg]) -> tuple[list[Arg], str | None]:
    """The command xargs runs (``echo`` when none), or why its options are not allowed."""
    parsed = parse_args(args, SPECS["xargs"], stop_at_operand=True)
    bad = [option for option, _ in parsed.options if option not in _XARGS_OK]
    if bad or parsed.unknown:
        return [], f"uses the xargs option {(bad or list(parsed.unknown))[0]}"
    inner = list(args[parsed.rest :]) or [Arg("echo")]
    if inner[0].text not in XARGS_TARGETS:
        return [], f"runs `{inner[0].text}` from xargs; only plain readers run without approval"
    return inner, None


def _source(upstream: SimpleCommand, cwd: str) -> tuple[list[str], bool, str | None]:
    """(directories whose entries it lists, recursive, reason when it is no plain listing)."""
    argv = [a for w in upstream.words for a in w.exact or ()]
    if not argv or any(w.exact is None for w in upstream.words) or upstream.redirects:
        return [], False, "gets its items from a command that is not a plain listing"
    name, args = argv[0].text, argv[1:]
    if name == "ls":
        parsed = parse_args(args, SPECS["ls"])
        if any(option not in _LS_NAMES_ONLY for option, _ in parsed.options):
            return [], False, "gets its items from `ls` with options that print more than names"
        starts = [a.text for a in parsed.operands] or ["."]
        return [*starts, "."], parsed.has("-R"), None
    if name == "find":
        texts = [a.text for a in args]
        if any(t in _FIND_PRINTS for t in texts) or any(t.startswith("-") for t in texts[:1]):
            return [], False, "gets its items from `find` printing more than paths"
        starts = []
        for text in texts:
            if text.startswith(("-", "(", "!", ")", ",")):
                break
            starts.append(text)
        return starts or ["."], True, None
    return [], False, f"gets its items from `{name}`, which is not a plain listing"


def xargs_source_reason(
    upstream: SimpleCommand | None, cwd: str, outside: Callable[[str], str | None]
) -> str | None:
    """Why the items the previous pipeline stage feeds xargs are not provably safe, or None."""
    if upstream is None or upstream.cwd != cwd:
        return "reads its items from input that is not a listing in the same directory"
    starts, recursive, reason = _source(upstream, cwd)
    if reason is not None:
        return reason
    paths = [absolute(s, cwd) for s in starts]
    if any(p is None for p in paths):
        return "lists a directory that cannot be followed"
    for start, path in zip(starts, paths, strict=True):
        # An operand can itself be an item (`ls -d X`, a file, `find X`): none may be `..` or
        # lead outside, even where the listing's own read check would already refuse it.
        if ".." in start.split("/") or (path is not None and outside(path) is not None):
            return f"would hand xargs the item {start!r}, which may lead outside"

    def descend(entry: os.DirEntry[str]) -> str | None:
        if not recursive:
            return None
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            return target if os.path.isdir(target) else None
        return entry.path if entry.is_dir(follow_symlinks=False) else None

    real = [os.path.realpath(p) for p in paths if p is not None and os.path.isdir(p)]
    try:
        for entry in bounded_entries(real, max_entries=MAX_LINK_WALK, descend=descend):
            name = entry.name
            if name in _DOTS:  # never listed by scandir; refused should that ever change
                return f"would hand xargs the name {name!r}, which may lead outside"
            if name.startswith("-") or name.split() != [name] or _UNSAFE_NAME & set(name):
                return f"would hand xargs the name {name!r}, which it could read as an option"
            if entry.is_symlink() and outside(entry.path) is not None:
                return f"would hand xargs the symlink {entry.path}, which leads outside"
    except WalkLimitError:
        return f"would hand xargs more than {MAX_LINK_WALK} names (cannot check)"
    return None
