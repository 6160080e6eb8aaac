"""The coding approval policy: roots → read-only → containment → command analysis → approval."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from prism.core import ExecutionAction, ExecutionDecision
from prism.core.options import (
    check_callable,
    check_choice,
    check_flag,
    check_items,
    check_seconds,
)

from ._analysis._commands import CommandVerdict, analyze_command
from ._analysis._rules import CommandRule
from ._approval import ApprovalCache, ApprovalCallback, ask_approval
from ._credentials import DEFAULT_DENY_READ, tracked_location
from ._harden import ceiling_directories, harden, strip_hardening
from ._paths import check_path, existing_directories
from ._protected import ProtectedPaths
from ._sandbox._fields import absolute_paths

__all__ = ["CodingApprovalPolicy"]

READ_KINDS = frozenset({"read", "list", "search", "glob"})
"""Kinds that never mutate: allowed in read-only mode, no approval when contained."""
FILE_KINDS = READ_KINDS | {"write", "edit"}
"""Kinds fully described by their paths: allowed without approval when every path is contained."""
MAX_APPROVAL_TIMEOUT_SECONDS = 86_400.0
_CACHE_MODES = ("none", "run", "session")
_WHERE = "CodingApprovalPolicy."
_HARDENED_PROGRAMS = frozenset({"git", "rg"})


def _allow(
    reason: str, *, exclusive: bool = False, command: str | None = None
) -> ExecutionDecision:
    modified = {"command": command} if command is not None else None
    return ExecutionDecision(allowed=True, reason=reason, modified=modified, exclusive=exclusive)


def _deny(reason: str, *, exclusive: bool = False) -> ExecutionDecision:
    return ExecutionDecision(allowed=False, reason=reason, exclusive=exclusive)


@dataclass(frozen=True, slots=True)
class _NeedsApproval:
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CodingApprovalPolicy:
    """An ``ExecutionPolicy`` for coding tools; every option is checked at construction
    (``ValueError`` names it).

    ``protected``: a ``ProtectedPaths`` or extra names/paths to protect besides the defaults.
    ``approve_writes``: every contained ``write``/``edit`` asks for approval too.
    ``deny_read``: credential locations refused to every tool (give the sandbox the same list).
    """

    roots: Sequence[str | os.PathLike[str]]
    """Workspace roots: existing directories, stored canonical as a tuple of str."""
    approve: ApprovalCallback | None = None
    read_only: bool = False
    command_rules: Sequence[CommandRule] = ()
    approval_timeout_seconds: float = 30.0
    approval_cache: Literal["none", "run", "session"] = "none"
    deny_metacharacters: bool = True
    protected: ProtectedPaths | Sequence[str] = ()
    approve_writes: bool = False
    deny_read: Sequence[str] = DEFAULT_DENY_READ
    """Credential locations no tool may read or write, even inside a root (``~/``: ``home``)."""
    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    cache: ApprovalCache | None = field(init=False, default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "roots", existing_directories(_WHERE + "roots", self.roots))
        check_callable(_WHERE + "approve", self.approve, optional=True)
        for name in ("read_only", "deny_metacharacters", "approve_writes"):
            check_flag(_WHERE + name, getattr(self, name))
        timeout, cap = self.approval_timeout_seconds, MAX_APPROVAL_TIMEOUT_SECONDS
        timeout = check_seconds(_WHERE + "approval_timeout_seconds", timeout, cap=cap)
        object.__setattr__(self, "approval_timeout_seconds", timeout)
        rules = check_items(_WHERE + "command_rules", self.command_rules, CommandRule)
        object.__setattr__(self, "command_rules", rules)
        object.__setattr__(self, "protected", _protected(self.protected))
        deny_read = absolute_paths(_WHERE + "deny_read", self.deny_read, home=True)
        object.__setattr__(self, "deny_read", deny_read)
        check_choice(_WHERE + "approval_cache", self.approval_cache, _CACHE_MODES)
        mode = self.approval_cache
        object.__setattr__(self, "cache", None if mode == "none" else ApprovalCache(mode))

    @property
    def _root_paths(self) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self.roots)  # canonicalised in __post_init__

    @property
    def _protected_paths(self) -> ProtectedPaths:
        return cast("ProtectedPaths", self.protected)  # normalised in __post_init__

    def check(self, action: ExecutionAction) -> ExecutionDecision | Awaitable[ExecutionDecision]:
        """Decide synchronously when no approval is needed; otherwise return an awaitable."""
        verdict = self._decide(action)
        if isinstance(verdict, ExecutionDecision):
            return verdict
        return self._approve(action, verdict.reason)

    def _decide(self, action: ExecutionAction) -> ExecutionDecision | _NeedsApproval:
        if not self._root_paths:
            return _deny("no workspace roots are configured; every action is denied")
        kind = action.kind
        if self.read_only and kind not in READ_KINDS and kind != "shell":
            return _deny(f"read-only mode: {kind} {action.operation} is not allowed")
        if kind == "shell":
            return self._decide_shell(action)
        if kind in FILE_KINDS and not action.paths:
            return _deny(f"{kind} action names no path; give a path inside the workspace")
        mutating = kind not in READ_KINDS
        links = mutating and kind in FILE_KINDS
        denied = self._check_paths(action.paths, action.cwd, mutating=mutating, links=links)
        if denied is not None:
            if mutating and kind in FILE_KINDS and self._only_host_executed(action):
                return _NeedsApproval(f"{denied} (a host-executed path: the user decides)")
            return _deny(denied)
        if kind in FILE_KINDS and self.approve_writes and kind not in READ_KINDS:
            return _NeedsApproval(f"{kind} {action.operation} changes files (approve_writes)")
        if kind in FILE_KINDS:
            return _allow(f"{kind}: every path is inside the workspace roots")
        return _NeedsApproval(f"{kind} {action.operation} is not a file or shell action")

    def _only_host_executed(self, action: ExecutionAction) -> bool:
        """Every refusal of ``action`` comes from ``HOST_EXECUTED_PATHS`` (git metadata,
        credentials and host additions stay denied)."""
        narrower = replace(self._protected_paths, host_executed=False)
        paths, cwd = action.paths, action.cwd
        found = self._check_paths(paths, cwd, mutating=True, protected=narrower, links=True)
        return found is None

    def _check_paths(
        self,
        paths: Iterable[str],
        cwd: str | None,
        *,
        mutating: bool,
        protected: ProtectedPaths | None = None,
        links: bool = False,
    ) -> str | None:
        for path in paths:
            reason = check_path(
                path,
                cwd=cwd or "",
                roots=self._root_paths,
                mutating=mutating,
                home=self.home,
                protected=self._protected_paths if protected is None else protected,
                deny_read=self.deny_read,
                link_targets=links,
            )
            if reason is not None:
                return reason
        return None

    def _decide_shell(self, action: ExecutionAction) -> ExecutionDecision | _NeedsApproval:
        command, cwd = action.command, action.cwd
        if not isinstance(command, str) or not command.strip():
            return _deny("shell action has no command", exclusive=True)
        if not cwd:
            return _deny(
                "shell action has no working directory; it must run inside a root", exclusive=True
            )
        denied = self._check_paths((*action.paths, cwd), cwd, mutating=False)
        if denied is not None:
            return _deny(f"shell working directory: {denied}", exclusive=True)
        command = strip_hardening(
            command, self._root_paths
        )  # a re-check of an action this policy hardened
        try:
            verdict = analyze_command(
                command,
                cwd=cwd,
                roots=self._root_paths,
                home=self.home,
                rules=self.command_rules,
                deny_metacharacters=self.deny_metacharacters,
                protected=self._protected_paths,
            )
        except Exception as exc:  # an analyser bug must never allow
            reason = f"command analysis failed ({type(exc).__name__}); needs approval"
        else:
            reason = verdict.reason or "command needs approval"
            tracked = self._tracked_secret(verdict)
            if verdict.decision == "allow" and _unceiled_git(verdict, self._root_paths):
                reason = "git cannot be kept inside the roots (a root's parent contains `:`)"
            elif tracked is not None:
                reason = tracked
            elif verdict.decision != "needs-approval":
                return self._shell_verdict(command, verdict)
        if self.read_only:
            return _deny(
                f"read-only mode: {reason}; only read-only commands may run", exclusive=True
            )
        return _NeedsApproval(reason)

    def _tracked_secret(self, verdict: CommandVerdict) -> str | None:
        """Why an allowed git command needs approval: a repository below a root tracks a
        credential location's path, so git can print it from its object store."""
        if verdict.decision != "allow" or "git" not in verdict.programs:
            return None
        found = tracked_location(self._root_paths, home=self.home, deny_read=self.deny_read)
        if found is None:
            return None
        return (
            f"git can print what the repository {found[0]} tracks, and its work tree holds the "
            f"credential location {found[1]} (git show/log -p bypass the mask); needs approval"
        )

    def _shell_verdict(self, command: str, verdict: CommandVerdict) -> ExecutionDecision:
        if verdict.decision == "deny":
            return _deny(verdict.reason or "command denied by the command policy", exclusive=True)
        reason = verdict.reason or "read-only command inside the workspace"
        # Run what was judged: every word its literal value, nothing left for the shell to expand.
        rendered = verdict.rendered if verdict.rendered is not None else command
        if verdict.programs & _HARDENED_PROGRAMS:
            # git/rg read configuration that can name programs: run them hardened.
            return _allow(reason, exclusive=True, command=harden(rendered, self._root_paths))
        return _allow(reason, exclusive=True, command=rendered if rendered != command else None)

    async def _approve(self, action: ExecutionAction, reason: str) -> ExecutionDecision:
        key = self.cache.key(action) if self.cache is not None else None
        exclusive = action.kind == "shell"
        if key is not None and self.cache is not None and self.cache.contains(key):
            return _allow(
                "approved earlier for this exact action (approval cache)", exclusive=exclusive
            )
        if self.approve is None:
            return _deny(
                f"approval required: {reason}; no approval callback is configured",
                exclusive=exclusive,
            )
        outcome = await ask_approval(
            self.approve, action, reason=reason, timeout_seconds=self.approval_timeout_seconds
        )
        if not outcome.approved:
            return _deny(outcome.reason or "approval denied", exclusive=exclusive)
        if key is not None and self.cache is not None:
            self.cache.add(key)
        return _allow("approved", exclusive=exclusive)


def _unceiled_git(verdict: CommandVerdict, roots: Sequence[str]) -> bool:
    """An allowed git command whose walk up to an enclosing repository cannot be stopped."""
    return "git" in verdict.programs and ceiling_directories(roots) is None


def _protected(protected: object) -> ProtectedPaths:
    if isinstance(protected, ProtectedPaths):
        return protected
    if isinstance(protected, (str, bytes)) or not isinstance(protected, Iterable):
        raise TypeError(
            f"{_WHERE}protected must be a ProtectedPaths or a sequence of names, got {protected!r}"
        )
    try:
        return ProtectedPaths(extra=tuple(protected))
    except (TypeError, ValueError) as error:
        raise type(error)(f"{_WHERE}protected: {error}") from error
