"""The one command-execution protocol: ``ShellOperations.exec`` runs one shell command.

Local execution implements it, and so does every sandbox (``prism.coding_security.Sandbox``
extends it with ``capabilities``), so a sandbox plugs into the shell tool unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from prism.core import AbortSignal
from prism.core.options import check_flag

__all__ = ["ExecResult", "ShellOperations"]


@dataclass(frozen=True, slots=True)
class ExecResult:
    """How a command ended. ``exit_code`` is ``None`` only when the process was killed
    (timeout, abort or output limit); a timeout is never reported as a success."""

    exit_code: int | None
    timed_out: bool = False
    aborted: bool = False

    def __post_init__(self) -> None:
        code = self.exit_code
        if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
            raise ValueError(f"ExecResult.exit_code must be an int or None, got {code!r}")
        check_flag("ExecResult.timed_out", self.timed_out)
        check_flag("ExecResult.aborted", self.aborted)


@runtime_checkable
class ShellOperations(Protocol):
    """Runs a shell command and streams its merged stdout+stderr to ``on_data``.

    The command sees exactly ``env`` (nothing is inherited). ``timeout_seconds`` is in seconds
    (``None``: no timeout). On timeout or abort the implementation kills everything the command
    started and returns ``ExecResult(exit_code=None, timed_out=True)`` /
    ``ExecResult(exit_code=None, aborted=True)``. An implementation that cannot run the command
    at all raises ``OSError`` (a sandbox: ``SandboxUnavailableError``); it never runs it some
    weaker way instead.
    """

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None = None,
        timeout_seconds: float | None = None,
    ) -> ExecResult:
        """Run ``command`` in ``cwd`` with exactly ``env``; return how it ended."""
        ...
