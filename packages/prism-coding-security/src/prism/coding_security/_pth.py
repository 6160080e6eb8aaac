"""Modules a ``.pth`` file imports at every Python start: host-executed like the ``.pth`` itself.

``site`` executes each ``.pth`` line that starts with ``import``; setuptools'
``distutils-precedence.pth`` imports ``_distutils_hack`` that way, so rewriting that module (or
its bytecode cache) runs code at the user's next Python start as surely as a new ``.pth`` would.
Found by content: the ``.pth`` files present in the same site-packages directory are read
(bounded) and the top-level modules their import lines name are protected.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["SITE_DIRS", "pth_module_paths", "pth_module_reason"]

SITE_DIRS = frozenset({"site-packages", "dist-packages"})
MAX_PTH_FILES = 256
"""At most this many ``.pth`` files are read per site-packages directory."""
MAX_PTH_BYTES = 65_536
_NAMES = re.compile(
    r"\bimport\s+([\w.]+(?:\s*,\s*[\w.]+)*)|\bfrom\s+([\w.]+)\s+import"
    r"|__import__\(\s*['\"]([\w.]+)|import_module\(\s*['\"]([\w.]+)"
)
_START_UP = frozenset({"sitecustomize", "usercustomize"})


def _imports(site: str) -> frozenset[str]:
    """Casefolded top-level module names the import lines of ``site``'s ``.pth`` files name."""
    try:
        names = sorted(n for n in os.listdir(site) if n.casefold().endswith(".pth"))
    except OSError:
        return frozenset()
    found: set[str] = set()
    for name in names[:MAX_PTH_FILES]:
        try:
            with open(os.path.join(site, name), "rb") as handle:
                text = handle.read(MAX_PTH_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            if not line.startswith(("import ", "import\t")):
                continue
            for match in _NAMES.finditer(line):
                for group in (g for g in match.groups() if g):
                    found.update(n.strip().split(".")[0].casefold() for n in group.split(","))
    return frozenset(found)


def _module(rest: Sequence[str], imported: frozenset[str]) -> bool:
    if not rest:
        return False
    if rest[0].casefold() == "__pycache__":
        stem = rest[1].casefold().split(".")[0] if len(rest) > 1 else ""
        return stem in _START_UP or stem in imported
    return rest[0].casefold().split(".")[0] in imported


def pth_module_reason(base: str, parts: Sequence[str]) -> str | None:
    """Why ``parts`` (relative to ``base``) is a module a ``.pth`` beside it imports (or the
    bytecode of one, or of sitecustomize/usercustomize), else ``None``."""
    for index, part in enumerate(parts[:-1]):
        if part.casefold() in SITE_DIRS:
            site = os.path.join(base, *parts[: index + 1])
            if _module(parts[index + 1 :], _imports(site)):
                named = "/".join(parts[: index + 2])
                return f"it is host-executed ({named}: Python imports it at every start)"
    return None


def pth_module_paths(site: str) -> list[str]:
    """The existing entries of ``site`` that ``pth_module_reason`` protects."""
    imported = _imports(site)
    found: list[str] = []
    try:
        names = os.listdir(site)
    except OSError:
        return found
    for name in names:
        if _module([name], imported):
            found.append(os.path.join(site, name))
    cache = os.path.join(site, "__pycache__")
    try:
        cached = os.listdir(cache)
    except OSError:
        cached = []
    found += [os.path.join(cache, n) for n in cached if _module(["__pycache__", n], imported)]
    return found
