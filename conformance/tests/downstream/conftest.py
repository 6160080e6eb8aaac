"""Run Prism's threat matrix against this project's own permission policy and redactor."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable

import pytest
from host_policy import HostPermissionPolicy

from prism.conformance import ConformanceSubjects, default_subjects
from prism.core import PermissionPolicy, Redactor, SecretRedactor


def permission_factory(denied_tools: Collection[str]) -> PermissionPolicy:
    """The rows ask for a policy that denies exactly these tools (and nothing else)."""
    return HostPermissionPolicy(blocked_tools=denied_tools)


def redactor_factory(secrets: Iterable[str]) -> Redactor:
    """The rows ask for a redactor hiding these secrets."""
    return SecretRedactor(secrets)


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    """Prism's defaults (installed first-party packages), with our own parts plugged in."""
    return dataclasses.replace(
        default_subjects(),
        permission_factory=permission_factory,
        redactor_factory=redactor_factory,
    )
