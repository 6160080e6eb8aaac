"""Permission policies: may this tool (or extension) run at all?"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol, final, runtime_checkable

from ._fastinit import fast_init
from ._globs import GlobSet
from ._types import EMPTY_MAPPING

__all__ = [
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "ask_permission",
    "check_permission",
    "create_static_permission_policy",
    "decides_by_key",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionRequest:
    """What is asked: ``<kind>:<target>:<action>``, e.g. ``tool:search:execute``."""

    kind: str
    target: str
    action: str
    metadata: Mapping[str, object] = field(default_factory=lambda: EMPTY_MAPPING)

    @property
    def key(self) -> str:
        """The ``kind:target:action`` key static policies match against."""
        return f"{self.kind}:{self.target}:{self.action}"


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionDecision:
    """Allowed or not, and why."""

    allowed: bool
    reason: str | None = None


_ALLOW = PermissionDecision(allowed=True)


@runtime_checkable
class PermissionPolicy(Protocol):
    """Decides a ``PermissionRequest``. Anything but ``True``/allowed denies; raising denies."""

    def check(
        self, request: PermissionRequest
    ) -> PermissionDecision | bool | Awaitable[PermissionDecision | bool]:
        """Return (or resolve to) a decision."""
        ...


def ask_permission(
    policy: PermissionPolicy, request: PermissionRequest
) -> PermissionDecision | Awaitable[PermissionDecision]:
    """Ask ``policy``; a decision at once for sync policies, an awaitable for async ones.

    Fails closed: anything but ``True`` or an allowed decision denies, and so does raising.
    """
    try:
        outcome = policy.check(request)
    except Exception as exc:
        return _failed(request, exc)
    if outcome is _ALLOW:  # what as_decision returns for it
        return _ALLOW
    if hasattr(outcome, "__await__"):
        return _await_decision(outcome, request)
    return as_decision(outcome, request)


async def _await_decision(
    outcome: Awaitable[PermissionDecision | bool], request: PermissionRequest
) -> PermissionDecision:
    try:
        return as_decision(await outcome, request)
    except Exception as exc:
        return _failed(request, exc)


def _failed(request: PermissionRequest, exc: Exception) -> PermissionDecision:
    reason = f"Permission check failed for {request.key} ({type(exc).__name__}: {exc})"
    return PermissionDecision(allowed=False, reason=reason)


async def check_permission(
    policy: PermissionPolicy, request: PermissionRequest
) -> PermissionDecision:
    """Ask ``policy`` and await the answer if needed (see ``ask_permission``)."""
    decision = ask_permission(policy, request)
    if isinstance(decision, PermissionDecision):
        return decision
    return await decision


def as_decision(outcome: object, request: PermissionRequest) -> PermissionDecision:
    """Only ``True`` or an allowed ``PermissionDecision`` allows; anything else denies."""
    if outcome is True:
        return _ALLOW
    if isinstance(outcome, PermissionDecision):
        if outcome.allowed is True:
            return outcome
        return PermissionDecision(
            allowed=False, reason=outcome.reason or f"Permission denied: {request.key}"
        )
    return PermissionDecision(allowed=False, reason=f"Permission denied: {request.key}")


class _StaticPolicy:
    """Glob allow/deny over request keys; decisions depend only on the key, so they are
    remembered (bounded)."""

    __slots__ = ("_cache", "allow", "deny")

    def __init__(self, allow: GlobSet, deny: GlobSet) -> None:
        self.allow = allow
        self.deny = deny
        self._cache: dict[str, PermissionDecision] = {}

    def check(self, request: PermissionRequest) -> PermissionDecision:
        return self.decide(f"{request.kind}:{request.target}:{request.action}")

    def decide(self, key: str) -> PermissionDecision:
        """The decision on ``key`` (all this policy reads of a request)."""
        decision = self._cache.get(key)
        if decision is None:
            if len(self._cache) >= 4096:
                self._cache.clear()
            decision = self._cache[key] = self._decide(key)
        return decision

    def _decide(self, key: str) -> PermissionDecision:
        if key in self.deny:
            return PermissionDecision(allowed=False, reason=f"Permission denied: {key}")
        if self.allow and key not in self.allow:
            return PermissionDecision(
                allowed=False, reason=f"Permission denied: {key} is not in the allow list"
            )
        return _ALLOW


def decides_by_key(policy: PermissionPolicy) -> Callable[[str], PermissionDecision] | None:
    """``policy``'s decision by request key when the key is all it reads (the static policy),
    so a caller need not build the request; ``None`` for any other policy."""
    return policy.decide if type(policy) is _StaticPolicy else None


def create_static_permission_policy(
    *, allow: Collection[str] = (), deny: Collection[str] = ()
) -> PermissionPolicy:
    """Globs over ``kind:target:action`` keys; deny wins; an empty allow admits all not denied."""
    return _StaticPolicy(GlobSet(allow), GlobSet(deny))
