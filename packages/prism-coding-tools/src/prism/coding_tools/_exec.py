"""The shell execution seam: ``ShellOperations`` runs one command, a sandbox may replace it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

import attrs

from prism.core import AbortSignal

__all__ = ["ExecResult", "ShellOperations"]


@attrs.frozen
class ExecResult:
    """How a command ended. ``exit_code`` is ``None`` only when the process was killed
    (timeout, abort or output limit); a timeout is never reported as a success."""

    exit_code: int | None
    timed_out: bool = False
    aborted: bool = False


@runtime_checkable
class ShellOperations(Protocol):
    """Runs a shell command and streams its merged stdout+stderr to ``on_data``.

    ``timeout_seconds`` is in seconds (``None``: no timeout). On timeout or abort the
    implementation kills everything the command started and returns
    ``ExecResult(exit_code=None, timed_out=True)`` / ``ExecResult(exit_code=None, aborted=True)``.
    """

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout_seconds: float | None,
    ) -> ExecResult:
        """Run ``command`` in ``cwd`` with exactly ``env``; return how it ended."""
        ...
