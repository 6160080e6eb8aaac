"""Hardened settings for allowlisted programs that read configuration: git and ripgrep.

An allowed command that runs ``git`` or ``rg`` is handed back with a prefix that fixes every
git setting able to start a program without a driver name (fsmonitor, hooks, pagers, transport,
signature checks), refuses implicitly discovered bare repositories (a directory the agent
filled with ``HEAD``/``objects``/``refs``/``config``), and drops ripgrep's config file. Git
settings given this way (``GIT_CONFIG_COUNT``) outrank every configuration file.
``GIT_CEILING_DIRECTORIES`` names the parent of every root, so git never walks up out of a
root into an enclosing repository (its config, hooks and objects are outside the workspace).
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Sequence

__all__ = [
    "HARDENED_GIT_CONFIG",
    "HARDENED_PREFIX",
    "ceiling_directories",
    "harden",
    "strip_hardening",
]

HARDENED_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("pager.status", "cat"),
    ("pager.log", "cat"),
    ("pager.diff", "cat"),
    ("pager.show", "cat"),
    ("pager.branch", "cat"),
    ("safe.bareRepository", "explicit"),
    ("protocol.allow", "never"),
    ("log.showSignature", "false"),
)
"""Settings that make git run a configured program, forced to harmless values."""

_ENVIRONMENT = (
    "GIT_CONFIG_NOSYSTEM=1",
    "GIT_OPTIONAL_LOCKS=0",
    "GIT_NO_LAZY_FETCH=1",
    "GIT_PAGER=cat",
    "PAGER=cat",
)


def _prefix() -> str:
    pairs = [f"GIT_CONFIG_COUNT={len(HARDENED_GIT_CONFIG)}"]
    for index, (key, value) in enumerate(HARDENED_GIT_CONFIG):
        pairs.append(f"GIT_CONFIG_KEY_{index}={key}")
        pairs.append(f"GIT_CONFIG_VALUE_{index}={value}")
    exports = " ".join((*_ENVIRONMENT, *pairs))
    return f"unset GIT_EXTERNAL_DIFF RIPGREP_CONFIG_PATH; export {exports}; "


HARDENED_PREFIX = _prefix()
"""POSIX shell text run before the command (works in bash, dash, zsh and busybox sh)."""


def ceiling_directories(roots: Sequence[str]) -> str | None:
    """``GIT_CEILING_DIRECTORIES`` for ``roots`` (their parents), or None when a parent cannot
    be listed (it contains ``:``, the list separator)."""
    parents = sorted({os.path.dirname(root.rstrip("/")) or "/" for root in roots})
    if any(":" in parent for parent in parents):
        return None
    return ":".join(parents)


@functools.lru_cache(maxsize=64)
def _rooted_prefix(roots: tuple[str, ...]) -> str:
    ceiling = ceiling_directories(roots)
    if not roots or ceiling is None:
        return HARDENED_PREFIX
    return f"{HARDENED_PREFIX}export GIT_CEILING_DIRECTORIES={shlex.quote(ceiling)}; "


def harden(command: str, roots: Sequence[str] = ()) -> str:
    """``command`` with the hardened prefix for ``roots`` (added once)."""
    prefix = _rooted_prefix(tuple(roots))
    return command if command.startswith(prefix) else prefix + command


def strip_hardening(command: str, roots: Sequence[str] = ()) -> str:
    """The command without a hardened prefix Prism added (for re-checking a modified action)."""
    prefix = _rooted_prefix(tuple(roots))
    return command[len(prefix) :] if command.startswith(prefix) else command
