"""Shared helpers for prism-coding-tools tests: a scripted executor, contexts, policies, /proc
checks."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from prism.coding_tools import ExecResult
from prism.core import (
    AbortController,
    AbortSignal,
    ExecutionAction,
    ExecutionDecision,
    ToolExecutionContext,
)


class Scripted:
    """Feeds fixed output, records what it was given, returns a fixed outcome."""

    def __init__(self, outcome: ExecResult | BaseException, output: bytes = b"") -> None:
        self.outcome = outcome
        self.output = output
        self.calls: list[dict[str, Any]] = []

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
        self.calls.append(
            {
                "command": command,
                "cwd": cwd,
                "env": env,
                "signal": signal,
                "timeout": timeout_seconds,
            }
        )
        on_data(self.output)
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


class RecordingPolicy:
    """Records every action; allows unless told otherwise, optionally rewriting fields."""

    def __init__(self, *, allow: bool = True, modified: dict[str, object] | None = None) -> None:
        self.actions: list[ExecutionAction] = []
        self.allow = allow
        self.modified = modified

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        self.actions.append(action)
        if not self.allow:
            return ExecutionDecision(allowed=False, reason=f"{action.kind} is not allowed here")
        return ExecutionDecision(allowed=True, modified=self.modified)


def make_context(
    signal: AbortSignal | None = None, *, session_id: str = "session-1", run_id: str = "run-1"
) -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id=session_id,
        run_id=run_id,
        tool_call_id="call-1",
        signal=signal if signal is not None else AbortController().signal,
    )


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (checked through /proc)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def read_number(path: str, field: bytes) -> int:
    with open(path, "rb") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + b":"))


@pytest.fixture
def context() -> Callable[..., ToolExecutionContext]:
    return make_context


@pytest.fixture
def policy() -> type[RecordingPolicy]:
    return RecordingPolicy


@pytest.fixture
def is_alive() -> Callable[[int], bool]:
    return alive


@pytest.fixture
def proc_number() -> Callable[[str, bytes], int]:
    return read_number


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Spill files land in a per-test directory that pytest cleans up."""
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    return spill


@pytest.fixture
def tmpfs_path(tmp_path: Path) -> Iterator[Path]:
    """A fresh directory on tmpfs when the host has one, else ``tmp_path``: a race on tmpfs
    spends its time racing rather than waiting on fsync to disk (same path semantics)."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK | os.X_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="prism-test-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
