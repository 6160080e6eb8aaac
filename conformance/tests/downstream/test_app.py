"""The downstream project's own tests (the plugin adds the threat rows beside them)."""

from host_policy import HostPermissionPolicy
from prism.core import PermissionRequest


def test_blocked_tools_are_denied() -> None:
    policy = HostPermissionPolicy(blocked_tools={"rm"})
    decision = policy.check(PermissionRequest(kind="tool", target="rm", action="execute"))
    assert not decision.allowed
