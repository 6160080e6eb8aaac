"""Shared fixtures for the real-bwrap sandbox tests: readiness probe, directories, one run."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest

from prism.coding_security._sandbox._bwrap import BWRAP_ISOLATION
from prism.coding_tools import ExecResult
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]


def _bwrap_problem() -> str | None:
    """Why bwrap cannot start with the sandbox's isolation flags here, or ``None`` when it can."""
    binary = shutil.which("bwrap")
    if binary is None:
        return "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    probe = subprocess.run(
        [
            *(binary, *BWRAP_ISOLATION),
            *("--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if probe.returncode != 0:
        return f"bwrap cannot create user namespaces here: {probe.stderr.strip()[:200]}"
    return None


BWRAP_PROBLEM = _bwrap_problem()
"""Why the real-bwrap tests skip on this machine (``None``: they run)."""


@pytest.fixture
def bwrap_ready() -> None:
    """Skip (with the named reason) where bwrap or user namespaces are missing."""
    if BWRAP_PROBLEM is not None:
        pytest.skip(BWRAP_PROBLEM)


@pytest.fixture
def host_dir() -> Iterator[Path]:
    """A host directory on the root file system (under /var/tmp, not the private /tmp)."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="prism-sbx-", dir=base)).resolve()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def run_sandboxed() -> RunSandbox:
    """``await run(sandbox, command, cwd, timeout_seconds=...)`` -> (result, merged output)."""

    async def run(
        sandbox: object, command: str, cwd: Path, *, timeout_seconds: float | None = None
    ) -> tuple[ExecResult, str]:
        chunks: list[bytes] = []
        with anyio.fail_after(scaled(60)):
            result = await sandbox.exec(  # type: ignore[attr-defined]
                command,
                cwd=str(cwd),
                env=dict(os.environ),
                on_data=chunks.append,
                timeout_seconds=timeout_seconds,
            )
        return result, b"".join(chunks).decode("utf-8", "replace")

    return run
