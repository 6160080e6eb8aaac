"""The ``Sandbox`` seam and its adapter to the shell tool's ``ShellOperations``."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, final, runtime_checkable

import anyio

from prism.coding_tools import ExecRequest, ExecResult, ShellOperations
from prism.core import PrismError

__all__ = [
    "CAPABILITY_NAMES",
    "Sandbox",
    "SandboxCapabilities",
    "SandboxUnavailableError",
    "create_sandbox_bash_operations",
]

RESULT_GRACE_SECONDS = 5.0
"""How long past its timeout a sandbox may take to report before it is cut off as timed out."""


@final
class SandboxUnavailableError(PrismError, OSError):
    """The sandbox could not start; the command did not run (fail closed, never unsandboxed)."""


@dataclass(frozen=True, slots=True)
class SandboxCapabilities:
    """What a sandbox actually isolates on this machine; hosts can refuse to run with less.

    Every field is measured, not assumed: ``False`` (or ``None``) when the control is missing.
    """

    filesystem_isolated: bool
    network_isolated: bool
    process_isolated: bool
    privilege_isolated: bool
    user_namespace: bool = False
    """A fresh user namespace could be created (probed with the real bwrap)."""
    seccomp_filter: bool = False
    """A seccomp filter is loaded into every sandboxed process."""
    unix_sockets_blocked: bool = False
    """``socket(AF_UNIX, ...)`` is refused (no host allowlist, filter loaded)."""
    protected_paths_readonly: bool = False
    """Protected paths inside writable roots are read-only (git metadata, ``.envrc``...)."""
    secrets_masked: bool = False
    """Every default ``deny_read`` path is masked, or only system directories are readable."""
    process_limit: str | None = None
    """How the process ceiling is applied: ``"cgroup"``, ``"rlimit"``, or ``None`` (none holds)."""

    def missing(self, required: Sequence[str]) -> list[str]:
        """The names in ``required`` that are not present (see ``CAPABILITY_NAMES``)."""
        absent = []
        for name in required:
            if name in ("cgroup", "rlimit"):
                present = self.process_limit == name
            else:
                present = bool(getattr(self, name))
            if not present:
                absent.append(name)
        return absent


CAPABILITY_NAMES: frozenset[str] = frozenset(
    {
        "filesystem_isolated",
        "network_isolated",
        "process_isolated",
        "privilege_isolated",
        "user_namespace",
        "seccomp_filter",
        "unix_sockets_blocked",
        "protected_paths_readonly",
        "secrets_masked",
        "process_limit",
        "cgroup",
        "rlimit",
    }
)
"""Names accepted by ``require=(...)``: the fields above, plus ``"cgroup"``/``"rlimit"`` for a
specific process-ceiling mechanism."""


@runtime_checkable
class Sandbox(ShellOperations, Protocol):
    """A ``ShellOperations`` that runs each command in isolation and says what it isolates.

    ``exec`` is the shell tool's own contract; when isolation cannot be set up it raises
    ``SandboxUnavailableError`` and the command does not run.
    """

    __slots__ = ()

    @property
    def capabilities(self) -> SandboxCapabilities:
        """What this sandbox isolates."""
        ...


@dataclass(frozen=True, slots=True)
class _SandboxShellOperations(ShellOperations):
    """``ShellOperations`` that run every command through ``sandbox``."""

    sandbox: Sandbox

    async def run(self, request: ExecRequest) -> ExecResult:
        """Delegate in seconds; a late or exit-code-less result becomes a timeout or abort."""
        timeout, signal = request.timeout_seconds, request.signal
        started = time.monotonic()
        outer = math.inf if timeout is None else timeout + RESULT_GRACE_SECONDS
        result: ExecResult | None = None
        with anyio.move_on_after(outer):
            result = await request.send(self.sandbox)
        if result is None:
            return ExecResult(exit_code=None, timed_out=True)
        if result.exit_code is not None or result.timed_out or result.aborted:
            return result
        if signal is not None and signal.aborted:
            return ExecResult(exit_code=None, aborted=True)
        if timeout is not None and time.monotonic() - started >= timeout:
            return ExecResult(exit_code=None, timed_out=True)
        raise SandboxUnavailableError(
            "the sandbox returned neither an exit code nor a timeout or abort; treated as a failure"
        )


def create_sandbox_bash_operations(sandbox: Sandbox) -> ShellOperations:
    """Plug ``sandbox`` into the shell tool: ``ShellOptions(operations=...)``."""
    if not callable(getattr(sandbox, "exec", None)):
        rule = "an object with an async exec(...) method (the Sandbox protocol)"
        raise TypeError(
            f"create_sandbox_bash_operations: sandbox must be {rule}, got {sandbox!r:.200}"
        )
    return _SandboxShellOperations(sandbox)
