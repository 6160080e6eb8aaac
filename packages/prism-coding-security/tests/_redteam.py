"""Shared helpers for the red-team tests: run one command through the real shell tool, with the
real policy (refusing every approval) or with no policy at all (the control)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from prism.coding_security import (
    ApprovalRequest,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ShellOptions, create_shell_tool
from prism.core import AbortController, ToolExecutionContext, render_tool_result
from prism.core.testing import scaled


@dataclass
class Refuser:
    """An approval callback that records what it was asked and refuses."""

    asked: list[str] = field(default_factory=list)

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.asked.append(request.describe())
        return False


@dataclass(frozen=True)
class Ran:
    error: str | None
    output: str
    asked: list[str]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """``tmp/ws`` is the workspace root; ``tmp/secret`` lies outside it."""
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret").write_text("OUTSIDE-SECRET\n")
    return root.resolve()


def _options(
    root: Path, shell_path: str | None, sandboxed: bool, deny_read: Sequence[str] | None
) -> ShellOptions:
    if not sandboxed:
        return ShellOptions(shell_path=shell_path)
    if deny_read is None:
        sandbox = BubblewrapSandbox(root=str(root))
    else:
        sandbox = BubblewrapSandbox(root=str(root), deny_read=deny_read)
    return ShellOptions(operations=create_sandbox_bash_operations(sandbox))


def _context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


async def run(
    root: Path,
    command: str,
    *,
    read_only: bool = False,
    shell_path: str | None = None,
    sandboxed: bool = False,
    deny_read: Sequence[str] | None = None,
) -> Ran:
    """Run ``command`` through the shell tool with the policy; every approval is refused."""
    refuser = Refuser()
    policy = CodingApprovalPolicy(roots=[root], approve=refuser, read_only=read_only)
    tool = create_shell_tool(
        root, options=_options(root, shell_path, sandboxed, deny_read), execution_policy=policy
    )
    with anyio.fail_after(scaled(60)):
        result = await tool.execute({"command": command}, _context())
    error = result.error.code if result.error is not None else None
    return Ran(error, render_tool_result(result), refuser.asked)


async def control(
    root: Path,
    command: str,
    *,
    shell_path: str | None = None,
    sandboxed: bool = False,
    deny_read: Sequence[str] | None = None,
) -> Ran:
    """The same command through the same shell tool with no policy: proves the attack is live."""
    tool = create_shell_tool(root, options=_options(root, shell_path, sandboxed, deny_read))
    with anyio.fail_after(scaled(60)):
        result = await tool.execute({"command": command}, _context())
    error = result.error.code if result.error is not None else None
    return Ran(error, render_tool_result(result), [])


@dataclass
class Approver:
    """An approval callback that records what it was asked and approves."""

    asked: list[str] = field(default_factory=list)

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.asked.append(request.describe())
        return True


class ApprovedShell:
    """One shell tool with a session approval cache; ``approver`` answers every request."""

    def __init__(self, root: Path, approver: Approver) -> None:
        policy = CodingApprovalPolicy(roots=[root], approve=approver, approval_cache="session")
        self._tool = create_shell_tool(root, execution_policy=policy)
        self._approver = approver

    async def run(self, command: str) -> Ran:
        with anyio.fail_after(scaled(60)):
            result = await self._tool.execute({"command": command}, _context())
        error = result.error.code if result.error is not None else None
        return Ran(error, render_tool_result(result), list(self._approver.asked))
