"""The one list of protected paths that the command policy and the sandbox both enforce.

A protected path is one whose contents make a program run code later, outside the agent's
control: git metadata (hooks, config, ``commondir``/``gitdir`` redirections, git directories of
any name) and the host-executed paths of ``_host_run`` (venv ``.pth`` files, direnv, hook
managers, editor tasks, shell start-up files ...). The policy refuses to let a tool or a command
mutate them (file tools may ask for approval on host-executed ones); the sandbox binds them
read-only. Both read this module, so they can never disagree.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from prism.core.options import check_choice, check_flag

from ._git_pointers import looks_like_git_dir, pointer_targets
from ._host_run import (
    HOST_EXECUTED_PATHS,
    LITERAL_NAMES,
    VENV_BIN,
    ends_a_pattern,
    host_executed,
    venv_bin,
)
from ._pth import SITE_DIRS, pth_module_paths, pth_module_reason
from ._walk import WalkLimitError, bounded_entries

__all__ = [
    "DEFAULT_PROTECTED_NAMES",
    "GIT_CODE_PATHS",
    "GitProtection",
    "ProtectedPaths",
]

GitProtection = Literal["all", "code"]
"""``"all"``: every path in or under a ``.git`` entry is protected (the default).
``"code"``: only the parts of git metadata that make git run code or redirect it."""

GIT_NAMES: tuple[str, ...] = (".git", ".gitmodules", ".gitconfig")
"""Git metadata names (a ``.git`` entry, submodule URLs and commands, git configuration)."""

DEFAULT_PROTECTED_NAMES: tuple[str, ...] = (
    *GIT_NAMES,
    *(e.pattern for e in HOST_EXECUTED_PATHS if e.pattern.casefold() in LITERAL_NAMES),
)
"""Entry names protected wherever they appear below a root (any depth, compared casefolded):
git's, and the single names of ``HOST_EXECUTED_PATHS`` (its patterns are matched too)."""

GIT_CODE_PATHS: tuple[str, ...] = (
    "config",
    "config.worktree",
    "hooks",
    "commondir",
    "gitdir",
    "worktrees",
    "modules",
    "info",
    "objects/info/alternates",
)
"""Paths below a ``.git`` directory kept read-only in ``git="code"`` mode: every config file,
hooks, the ``commondir``/``gitdir`` redirections, worktree and module metadata, ``info/``
(attributes, excludes) and object alternates. Everything else (objects, refs, index, HEAD,
logs) stays writable so the agent can commit."""


@dataclass(frozen=True, slots=True)
class ProtectedPaths:
    """What is protected: the default names, host additions and the git mode.

    ``extra`` holds more entry names (``"Makefile"``) or root-relative paths (``"ci/deploy.sh"``).
    """

    extra: tuple[str, ...] = ()
    git: GitProtection = "all"
    host_executed: bool = True
    """Include ``HOST_EXECUTED_PATHS`` (``False``: git metadata and ``extra`` only)."""

    def __post_init__(self) -> None:
        check_choice("ProtectedPaths.git", self.git, ("all", "code"))
        check_flag("ProtectedPaths.host_executed", self.host_executed)
        if isinstance(self.extra, str | bytes) or not isinstance(self.extra, tuple | list):
            raise TypeError(f"ProtectedPaths.extra must be a sequence of names, got {self.extra!r}")
        for index, item in enumerate(self.extra):
            if not isinstance(item, str) or not item or "\x00" in item or item.startswith("/"):
                rule = "a relative name or path"
                error = ValueError if isinstance(item, str) else TypeError
                raise error(f"ProtectedPaths.extra[{index}] must be {rule}, got {item!r:.200}")

    @property
    def names(self) -> frozenset[str]:
        """Casefolded single-component names protected at any depth."""
        return _names(self.extra, self.host_executed)

    @property
    def relative_paths(self) -> tuple[str, ...]:
        """Host-named multi-component paths, relative to each root."""
        return tuple(p.strip("/") for p in self.extra if "/" in p.strip("/"))

    def reason(self, resolved: str, roots: Sequence[str]) -> str | None:
        """Why mutating the canonical path ``resolved`` is refused, or ``None`` when allowed."""
        for root in roots:
            relative = _relative(resolved, root)
            if relative is not None:
                found = self._match(relative) or self._venv(root, relative)
                if found is None and self.host_executed:
                    found = pth_module_reason(root, relative)
                if found is not None:
                    return found
        return self._match(resolved.strip("/").split("/")) if not roots else None

    def _venv(self, root: str, relative: Sequence[str]) -> str | None:
        count = venv_bin(root, relative) if self.host_executed else None
        if count is None:
            return None
        return f"it is host-executed ({'/'.join(relative[:count])}: {VENV_BIN.why})"

    def _match(self, parts: Sequence[str]) -> str | None:
        folded = [p.casefold() for p in parts if p]
        names = self.names
        for index, part in enumerate(folded):
            if part == ".git":
                if self.git == "all" or _git_code_path(folded[index + 1 :]):
                    return f"it is git metadata ({'/'.join(parts[: index + 1])})"
                continue
            if part in names and not (self.host_executed and part in LITERAL_NAMES):
                return f"it is protected ({'/'.join(parts[: index + 1])} makes programs run code)"
        found = host_executed(folded) if self.host_executed else None
        if found is not None:
            count, entry = found
            return f"it is host-executed ({'/'.join(parts[:count])}: {entry.why})"
        joined = "/".join(folded)
        for path in self.relative_paths:
            wanted = path.casefold()
            if joined == wanted or joined.startswith(wanted + "/"):
                return f"it is protected by the host ({path})"
        return None

    def existing_under(
        self, root: str, *, max_entries: int = 10_000, roots: Sequence[str] = ()
    ) -> list[str]:
        """Existing protected entries below ``root`` (for read-only binds), walked boundedly.

        Names and host-executed patterns match by path; git directories of any name match by
        content (``HEAD`` plus ``objects`` or ``commondir``, see ``looks_like_git_dir``); none of
        them is walked into (each is bound read-only as a whole). Symlinks are
        reported, not followed. What a ``.git`` entry points to is reported when it lies below
        ``root`` or any of ``roots`` (the other writable roots). Stops after ``max_entries``
        directory entries and then reports the walk as incomplete by raising ``OSError``.
        """
        names = self.names
        prefix = root.rstrip("/") + "/"
        found: list[str] = []

        def hit(entry: os.DirEntry[str]) -> bool:
            name = entry.name.casefold()
            if name in names:
                return True
            if self.host_executed and ends_a_pattern(name):
                parts = entry.path[len(prefix) :].casefold().split("/")
                match = host_executed(parts)
                if match is not None and match[0] == len(parts):
                    return True
            return False

        def descend(entry: os.DirEntry[str]) -> str | None:
            if not entry.is_dir(follow_symlinks=False):
                return None
            if hit(entry):
                found.append(entry.path)
                return None
            bin_dir = self.host_executed and entry.name.casefold() in ("bin", "scripts")
            if bin_dir and os.path.isfile(os.path.join(os.path.dirname(entry.path), "pyvenv.cfg")):
                found.append(entry.path)  # a virtual environment's scripts, whatever its name
                return None
            if looks_like_git_dir(entry.path):
                found.append(entry.path)  # a git directory by content, whatever its name
                return None
            if self.host_executed and entry.name.casefold() in SITE_DIRS:
                found.extend(pth_module_paths(entry.path))  # what its .pth files import
            return entry.path

        try:
            for entry in bounded_entries([root], max_entries=max_entries, descend=descend):
                if not entry.is_dir(follow_symlinks=False) and hit(entry):
                    found.append(entry.path)
        except WalkLimitError as error:
            raise WalkLimitError(f"{error} (root {root}); walk incomplete") from None
        found.extend(
            os.path.join(root, p) for p in self.relative_paths if os.path.lexists(f"{root}/{p}")
        )
        prefixes = tuple(r.rstrip("/") + "/" for r in (root, *roots))
        for git_entry in [f for f in found if os.path.basename(f).casefold() == ".git"]:
            # What a .git entry points to (gitdir:, commondir, includes, hooksPath) is git
            # metadata too, wherever it sits below the root.
            found.extend(
                t
                for t in pointer_targets(git_entry)
                if t.startswith(prefixes) and os.path.lexists(t)
            )
        return sorted(set(found))


@functools.lru_cache(maxsize=64)
def _names(extra: tuple[str, ...], host_executed: bool) -> frozenset[str]:
    single = (name for name in extra if "/" not in name.strip("/"))
    defaults = DEFAULT_PROTECTED_NAMES if host_executed else GIT_NAMES
    return frozenset(n.casefold() for n in (*defaults, *single))


def _git_code_path(rest: Sequence[str]) -> bool:
    if not rest:
        return True  # the .git entry itself (replacing it redirects git)
    joined = "/".join(rest)
    return any(joined == p or joined.startswith(p + "/") for p in GIT_CODE_PATHS) or (
        rest[-1].startswith("config")
    )


def _relative(resolved: str, root: str) -> list[str] | None:
    if root == "/":
        return resolved.strip("/").split("/")
    if resolved == root:
        return []
    prefix = root.rstrip("/") + "/"
    return resolved[len(prefix) :].split("/") if resolved.startswith(prefix) else None
