"""Execution policy for coding agents: shell parsing, path containment, approval, bubblewrap.

The OS sandbox (``BubblewrapSandbox``) is the security boundary; the command policy is a guard
rail that catches mistakes and obvious attacks before anything runs. See docs/security.md.
"""

from ._analysis._commands import CommandVerdict, analyze_command
from ._analysis._rules import CommandRule
from ._approval import ApprovalCallback, ApprovalRequest
from ._credentials import CREDENTIAL_LOCATIONS, CredentialLocation
from ._host_run import HOST_EXECUTED_PATHS, HostExecutedPath
from ._paths import canonicalize_roots, check_path
from ._policy import CodingApprovalPolicy
from ._protected import ProtectedPaths
from ._sandbox._bwrap import BubblewrapSandbox
from ._sandbox._protocol import (
    Sandbox,
    SandboxCapabilities,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)
from ._sandbox._view import DEFAULT_DENY_READ

__all__ = [
    "CREDENTIAL_LOCATIONS",
    "DEFAULT_DENY_READ",
    "HOST_EXECUTED_PATHS",
    "ApprovalCallback",
    "ApprovalRequest",
    "BubblewrapSandbox",
    "CodingApprovalPolicy",
    "CommandRule",
    "CommandVerdict",
    "CredentialLocation",
    "HostExecutedPath",
    "ProtectedPaths",
    "Sandbox",
    "SandboxCapabilities",
    "SandboxUnavailableError",
    "analyze_command",
    "canonicalize_roots",
    "check_path",
    "create_sandbox_bash_operations",
]
