"""Hardened settings for allowlisted programs that read configuration: git and ripgrep.

An allowed command that runs ``git`` or ``rg`` is handed back with a prefix that fixes every
git setting able to start a program without a driver name (fsmonitor, hooks, pagers, transport,
signature checks), refuses implicitly discovered bare repositories (a directory the agent
filled with ``HEAD``/``objects``/``refs``/``config``), and drops ripgrep's config file. Git
settings given this way (``GIT_CONFIG_COUNT``) outrank every configuration file.
"""

from __future__ import annotations

__all__ = ["HARDENED_GIT_CONFIG", "HARDENED_PREFIX", "harden", "strip_hardening"]

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


def harden(command: str) -> str:
    """``command`` with the hardened prefix (added once)."""
    return command if command.startswith(HARDENED_PREFIX) else HARDENED_PREFIX + command


def strip_hardening(command: str) -> str:
    """The command without a hardened prefix Prism added (for re-checking a modified action)."""
    return command[len(HARDENED_PREFIX) :] if command.startswith(HARDENED_PREFIX) else command
