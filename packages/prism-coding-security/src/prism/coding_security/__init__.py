"""Execution policy for coding agents: shell parsing, path containment, approval, bubblewrap.

The OS sandbox (``BubblewrapSandbox``) is the security boundary; the command policy is a guard
rail that catches mistakes and obvious attacks before anything runs. See docs/security.md.
"""

from ._approval import ApprovalCallback, ApprovalRequest
from ._paths import canonicalize_roots, check_path

__all__ = [
    "ApprovalCallback",
    "ApprovalRequest",
    "canonicalize_roots",
    "check_path",
]
