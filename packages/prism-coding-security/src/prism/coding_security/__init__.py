"""Execution policy for coding agents: shell parsing, path containment, approval, bubblewrap.

The OS sandbox (``BubblewrapSandbox``) is the security boundary; the command policy is a guard
rail that catches mistakes and obvious attacks before anything runs. See docs/security.md.
"""

from ._approval import ApprovalCallback, ApprovalRequest
from ._bwrap import BubblewrapSandbox
from ._bwrap_view import DEFAULT_DENY_READ
from ._commands import CommandVerdict, analyze_command
from ._paths import canonicalize_roots, check_path
from ._policy import CodingApprovalPolicy, create_coding_approval_policy
from ._protected import ProtectedPaths
from ._rules import CommandRule
from ._sandbox import (
    Sandbox,
    SandboxCapabilities,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)

__all__ = [
    "DEFAULT_DENY_READ",
    "ApprovalCallback",
    "ApprovalRequest",
    "BubblewrapSandbox",
    "CodingApprovalPolicy",
    "CommandRule",
    "CommandVerdict",
    "ProtectedPaths",
    "Sandbox",
    "SandboxCapabilities",
    "SandboxUnavailableError",
    "analyze_command",
    "canonicalize_roots",
    "check_path",
    "create_coding_approval_policy",
    "create_sandbox_bash_operations",
]
