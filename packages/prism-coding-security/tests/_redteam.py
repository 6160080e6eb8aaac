"""Shared helpers for the red-team tests: run one command through the real shell tool, with the
real policy (refusing every approval) or with no policy at all (the control); the coding tools
under the default policy; a real venv; git and python runs on the host as the user's would be."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from prism.coding_security import (
    ApprovalCallback,
    ApprovalRequest,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ExecResult, ShellOptions, create_coding_tools, create_shell_tool
from prism.core import (
    AbortController,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
    render_tool_result,
)
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
"""The ``run_sandboxed`` fixture: run a command in a sandbox, return its result and output."""


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


def tool_context() -> ToolExecutionContext:
    """A fresh execution context with a signal nobody aborts."""
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


def policy_tools(root: Path, approve: ApprovalCallback | None = None) -> dict[str, ToolDefinition]:
    """The coding tools under the default policy; with no ``approve``, every ask is a denial."""
    policy = CodingApprovalPolicy(roots=[root], approve=approve)
    return {tool.name: tool for tool in create_coding_tools(root, execution_policy=policy)}


async def run_tool(tool: ToolDefinition, arguments: dict[str, object]) -> ToolResult:
    """Run one tool call under an outer deadline."""
    with anyio.fail_after(scaled(30)):
        return await tool.execute(arguments, tool_context())


def make_venv(root: Path) -> Path:
    """A real virtual environment (no pip) in ``root/.venv``; returns its site-packages."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")],
        check=True,
        timeout=scaled(120),
    )
    found = list((root / ".venv" / "lib").glob("python3*/site-packages"))
    assert len(found) == 1
    return found[0]


def host_python_runs(root: Path, marker: Path) -> bool:
    """Start the workspace venv's python on the host, as the user's next ``pytest`` would."""
    marker.unlink(missing_ok=True)
    subprocess.run(
        [str(root / ".venv" / "bin" / "python"), "-c", "pass"],
        check=False,
        timeout=scaled(60),
        env={"PATH": "/usr/bin:/bin"},
    )
    return marker.exists()


NEEDS_GIT = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git_in(repo: Path, *args: str) -> None:
    """Run ``git`` in ``repo`` with a throwaway identity; raises when it fails."""
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=a", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=scaled(60),
    )


def host_git_env(home: Path) -> dict[str, str]:
    """The environment of a host ``git`` run: no system config, ``home`` as HOME, an identity."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return env


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
        result = await tool.execute({"command": command}, tool_context())
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
        result = await tool.execute({"command": command}, tool_context())
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
            result = await self._tool.execute({"command": command}, tool_context())
        error = result.error.code if result.error is not None else None
        return Ran(error, render_tool_result(result), list(self._approver.asked))
