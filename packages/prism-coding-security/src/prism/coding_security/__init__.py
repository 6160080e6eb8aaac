"""Execution policy for coding agents: shell parsing, path containment, approval, bubblewrap.

The OS sandbox (``BubblewrapSandbox``) is the security boundary; the command policy is a guard
rail that catches mistakes and obvious attacks before anything runs. See docs/security.md.
"""

from ._approval import ApprovalCallback, ApprovalRequest
from ._bwrap import BubblewrapSandbox
from ._paths import canonicalize_roots, check_path
from ._sandbox import (
    Sandbox,
    SandboxCapabilities,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)

__all__ = [
    "ApprovalCallback",
    "ApprovalRequest",
    "BubblewrapSandbox",
    "Sandbox",
    "SandboxCapabilities",
    "SandboxUnavailableError",
    "canonicalize_roots",
    "check_path",
    "create_sandbox_bash_operations",
]
