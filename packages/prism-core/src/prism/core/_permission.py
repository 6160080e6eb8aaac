"""Permission policies: may this tool (or extension) run at all?"""

from __future__ import annotations

from collections.abc import Awaitable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ._fastinit import fast_init
from ._globs import GlobSet
from ._types import EMPTY_MAPPING

__all__ = [
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "check_permission",
    "create_static_permission_policy",
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


async def check_permission(
    policy: PermissionPolicy, request: PermissionRequest
) -> PermissionDecision:
    """Ask ``policy``; fail closed on anything but an explicit allow, with a reason."""
    try:
        outcome = policy.check(request)
        if hasattr(outcome, "__await__"):
            outcome = await outcome
    except Exception as exc:
        return PermissionDecision(
            allowed=False,
            reason=f"Permission check failed for {request.key} ({type(exc).__name__}: {exc})",
        )
    return as_decision(outcome, request)


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


@dataclass(frozen=True, slots=True)
class _StaticPolicy:
    allow: GlobSet
    deny: GlobSet

    def check(self, request: PermissionRequest) -> PermissionDecision:
        key = request.key
        if key in self.deny:
            return PermissionDecision(allowed=False, reason=f"Permission denied: {key}")
        if self.allow and key not in self.allow:
            return PermissionDecision(
                allowed=False, reason=f"Permission denied: {key} is not in the allow list"
            )
        return _ALLOW


def create_static_permission_policy(
    *, allow: Collection[str] = (), deny: Collection[str] = ()
) -> PermissionPolicy:
    """Globs over ``kind:target:action`` keys; deny wins; an empty allow admits all not denied."""
    return _StaticPolicy(GlobSet(allow), GlobSet(deny))
