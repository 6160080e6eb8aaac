"""conftest.py of a host project: run Prism's threat matrix against our own parts."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable

import pytest

from prism.conformance import ConformanceSubjects, default_subjects
from prism.core import PermissionDecision, PermissionRequest, Redactor, SecretRedactor


class HostPermissionPolicy:
    """Our application's policy (import yours from your package): deny blocked tools."""

    def __init__(self, blocked_tools: Collection[str] = ()) -> None:
        self.blocked_tools = frozenset(blocked_tools)

    def check(self, request: PermissionRequest) -> PermissionDecision:
        if request.kind == "tool" and request.target in self.blocked_tools:
            return PermissionDecision(allowed=False, reason=f"{request.target} is blocked here")
        return PermissionDecision(allowed=True)


def permission_factory(denied_tools: Collection[str]) -> HostPermissionPolicy:
    """The rows ask for a policy that denies exactly these tools (and nothing else)."""
    return HostPermissionPolicy(blocked_tools=denied_tools)


def redactor_factory(secrets: Iterable[str]) -> Redactor:
    """The rows ask for a redactor that hides these secrets."""
    return SecretRedactor(secrets)


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    """Prism's defaults (the installed first-party packages) with our own parts plugged in."""
    return dataclasses.replace(
        default_subjects(),
        permission_factory=permission_factory,
        redactor_factory=redactor_factory,
    )
