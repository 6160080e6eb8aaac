"""A workspace inside another repository: allowlisted git never walks up into the enclosing one
(its config could name a program to run, its history is outside the roots)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from prism.coding_security import CodingApprovalPolicy
from prism.core import ExecutionAction, ExecutionDecision

from ._redteam import NEEDS_GIT, git_in

pytestmark = NEEDS_GIT


@pytest.fixture
def nested(tmp_path: Path) -> tuple[Path, Path]:
    """(enclosing repository whose config runs a program on `git diff`, workspace inside it)."""
    outer = tmp_path.resolve() / "outer"
    outer.mkdir()
    git_in(outer, "init", "-q", ".")
    (outer / "tracked").write_text("a\n")
    git_in(outer, "add", "tracked")
    git_in(outer, "commit", "-qm", "enclosing-secret-history")
    marker = tmp_path / "RAN"
    git_in(outer, "config", "diff.external", f"touch {marker}")
    git_in(outer, "config", "core.pager", f"touch {marker}; cat")
    (outer / "tracked").write_text("b\n")  # a change, so `git diff` has work for the driver
    workspace = outer / "ws"
    (workspace / "src").mkdir(parents=True)
    return outer, workspace


def _run_as_allowed(root: Path, command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    policy = CodingApprovalPolicy(roots=[root])
    action = ExecutionAction(
        kind="shell", operation="execute", command=command, cwd=str(cwd), paths=(str(cwd),)
    )
    decision = policy.check(action)
    assert isinstance(decision, ExecutionDecision) and decision.allowed, decision
    final = (decision.modified or {}).get("command", command)
    assert isinstance(final, str)
    return subprocess.run(
        ["bash", "-c", final], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("where", [".", "src"])
def test_git_in_a_nested_workspace_never_reads_the_enclosing_repository(
    nested: tuple[Path, Path], where: str
) -> None:
    outer, workspace = nested
    marker = outer.parent / "RAN"
    control = subprocess.run(["git", "diff"], cwd=workspace, capture_output=True, timeout=60)
    assert control.returncode == 0 and marker.exists(), "the attack must work on plain git"
    marker.unlink()
    cwd = workspace / where
    for command in ("git status", "git diff", "git log", "git log -p", "git show"):
        result = _run_as_allowed(workspace, command, cwd)
        assert not marker.exists(), command
        assert "enclosing-secret-history" not in result.stdout, command
        assert result.returncode != 0 and "not a git repository" in result.stderr.lower(), command


def test_a_repository_at_the_root_still_works(nested: tuple[Path, Path]) -> None:
    _, workspace = nested
    git_in(workspace, "init", "-q", ".")
    (workspace / "src" / "f").write_text("x\n")
    git_in(workspace, "add", "src/f")
    git_in(workspace, "commit", "-qm", "own-history")
    result = _run_as_allowed(workspace, "git log --oneline", workspace / "src")
    assert result.returncode == 0, result.stderr
    assert "own-history" in result.stdout
    assert "enclosing-secret-history" not in result.stdout


def test_a_root_whose_parent_cannot_be_a_ceiling_needs_approval(tmp_path: Path) -> None:
    root = tmp_path.resolve() / "a:b" / "ws"
    root.mkdir(parents=True)
    policy = CodingApprovalPolicy(roots=[root], read_only=True)  # decided without asking
    action = ExecutionAction(
        kind="shell", operation="execute", command="git status", cwd=str(root), paths=(str(root),)
    )
    decision = policy.check(action)
    assert isinstance(decision, ExecutionDecision)
    assert not decision.allowed and "git cannot be kept inside the roots" in (decision.reason or "")
    ls = ExecutionAction(
        kind="shell", operation="execute", command="ls", cwd=str(root), paths=(str(root),)
    )
    allowed = policy.check(ls)
    assert isinstance(allowed, ExecutionDecision) and allowed.allowed
