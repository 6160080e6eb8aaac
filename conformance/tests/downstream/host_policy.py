"""The host application's own permission policy (what the threat rows test)."""

from __future__ import annotations

from collections.abc import Collection

from prism.core import PermissionDecision, PermissionRequest


class HostPermissionPolicy:
    """Denies the blocked tools by name; allows every other tool."""

    def __init__(self, blocked_tools: Collection[str] = ()) -> None:
        self.blocked_tools = frozenset(blocked_tools)

    def check(self, request: PermissionRequest) -> PermissionDecision:
        if request.kind == "tool" and request.target in self.blocked_tools:
            return PermissionDecision(allowed=False, reason=f"{request.target} is blocked here")
        return PermissionDecision(allowed=True)
