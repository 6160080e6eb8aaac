"""Code execution through files git reads: every piece of git metadata is protected, and the
allowlisted git commands the policy allows run hardened (real git in temp repositories)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import pytest

from prism.coding_security import ApprovalRequest, CodingApprovalPolicy, check_path
from prism.coding_security._harden import HARDENED_PREFIX
from prism.coding_security._protected import ProtectedPaths
from prism.core import ExecutionAction, ExecutionDecision
from prism.core.testing import scaled

from ._redteam import NEEDS_GIT, git_in

pytestmark = NEEDS_GIT


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "ws"
    root.mkdir()
    git_in(root, "init", "-q", ".")
    (root / "f").write_text("a\n")
    git_in(root, "add", "f")
    git_in(root, "commit", "-qm", "x")
    return root


def _decide(root: Path, action: ExecutionAction, **options: object) -> ExecutionDecision:
    policy = CodingApprovalPolicy(roots=[root], **options)  # type: ignore[arg-type]
    decision = policy.check(action)
    assert isinstance(decision, ExecutionDecision)
    return decision


def _write(root: Path, path: str) -> ExecutionDecision:
    action = ExecutionAction(kind="write", operation="write", paths=(str(root / path),))
    return _decide(root, action)


def _shell(root: Path, command: str, cwd: Path | None = None) -> ExecutionDecision:
    where = str(cwd or root)
    action = ExecutionAction(
        kind="shell", operation="execute", command=command, cwd=where, paths=(where,)
    )
    return _decide(root, action)


def _run_allowed(root: Path, command: str, cwd: Path | None = None) -> None:
    """Run what the policy hands back, with real bash, the way the shell tool would."""
    decision = _shell(root, command, cwd)
    assert decision.allowed, decision.reason
    assert decision.exclusive
    final = (decision.modified or {}).get("command", command)
    assert isinstance(final, str)
    subprocess.run(["bash", "-c", final], cwd=cwd or root, capture_output=True, timeout=60)


def _plant_commondir_attack(root: Path, marker: Path) -> None:
    (root / ".git" / "commondir").write_text("../evil\n")
    (root / "evil" / "objects").mkdir(parents=True)
    (root / "evil" / "refs" / "heads").mkdir(parents=True)
    (root / "evil" / "config").write_text(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')


@pytest.mark.parametrize(
    "path",
    [
        ".git/commondir",
        ".git/info/attributes",
        ".git/objects/info/alternates",
        ".GIT/config",
        "sub/.git",
        "sub/.Git",
        ".gitmodules",
    ],
)
def test_every_path_in_git_metadata_is_protected_for_writes(repo: Path, path: str) -> None:
    decision = _write(repo, path)
    assert not decision.allowed
    assert "cannot be modified" in (decision.reason or "")
    read = _decide(repo, ExecutionAction(kind="read", operation="read", paths=(str(repo / path),)))
    assert read.allowed


def test_a_git_file_makes_its_gitdir_protected(repo: Path) -> None:
    (repo / "meta").mkdir()
    (repo / "meta" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "meta" / "commondir").write_text("../.git\n")
    (repo / ".git" / "worktrees").mkdir()
    (repo / "wt").mkdir()
    (repo / "wt" / ".git").write_text("gitdir: ../meta\n")
    assert not _write(repo, "meta/config").allowed
    assert not _write(repo, "meta/config.worktree").allowed
    assert not _write(repo, "meta").allowed
    assert _write(repo, "metadata/config").allowed
    # Inside the pointing work tree, the pointer names its target even before it exists.
    (repo / "wt" / ".git").write_text("gitdir: .meta\n")
    assert not _write(repo, "wt/.meta/config").allowed
    assert _write(repo, "wt/src/app.py").allowed


def test_commondir_and_config_includes_are_protected(repo: Path) -> None:
    (repo / "common-git").mkdir()
    (repo / ".git" / "commondir").write_text("../common-git\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write("[include]\n\tpath = ../extra.gitconfig\n")
        config.write('[core]\n\thooksPath = "tools/hooks"\n')
    assert not _write(repo, "common-git/config").allowed
    assert not _write(repo, "extra.gitconfig").allowed
    assert not _write(repo, "tools/hooks/pre-commit").allowed
    assert _write(repo, "tools/build.sh").allowed


def test_a_separate_git_directory_of_any_name_is_protected(repo: Path) -> None:
    other = repo / "vendor"
    other.mkdir()
    git_in(other, "init", "-q", "--separate-git-dir", str(repo / "gitstore"), "lib")
    assert not _write(repo, "gitstore/config").allowed
    assert not _write(repo, "gitstore/hooks/post-checkout").allowed
    assert not _write(repo, "vendor/lib/.git").allowed


def test_shell_writes_into_pointer_targets_are_denied(repo: Path) -> None:
    (repo / "gitstore").mkdir()
    (repo / "gitstore" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "gitstore" / "objects").mkdir()
    for command in ("echo x > gitstore/config", "echo ../evil > .git/commondir", "touch .git"):
        decision = _shell(repo, command)
        assert not decision.allowed, command


def test_the_user_git_config_is_protected_when_home_is_inside_a_root(repo: Path) -> None:
    home = repo / "home"
    (home / ".config" / "git").mkdir(parents=True)
    for path in (home / ".config/git/config", home / ".config/git/attributes", home / ".gitconfig"):
        reason = check_path(
            str(path), cwd=str(repo), roots=(str(repo),), mutating=True, home=str(home)
        )
        assert reason is not None, path
    assert (
        check_path(
            str(home / "notes.txt"),
            cwd=str(repo),
            roots=(str(repo),),
            mutating=True,
            home=str(home),
        )
        is None
    )


def test_host_extra_protected_names(repo: Path) -> None:
    action = ExecutionAction(kind="edit", operation="edit", paths=(str(repo / "Makefile"),))
    assert _decide(repo, action).allowed
    assert not _decide(repo, action, protected=["Makefile"]).allowed
    assert not _decide(repo, action, protected=ProtectedPaths(extra=("Makefile",))).allowed
    with pytest.raises(ValueError, match="protected"):
        CodingApprovalPolicy(roots=[repo], protected=["/abs"])


@pytest.mark.anyio
async def test_approve_writes_sends_contained_writes_to_approval(repo: Path) -> None:
    asked: list[ExecutionAction] = []

    async def approve(request: ApprovalRequest) -> bool:
        asked.append(request.action)
        return False

    policy = CodingApprovalPolicy(roots=[repo], approve_writes=True, approve=approve)
    action = ExecutionAction(kind="write", operation="write", paths=(str(repo / "f"),))
    pending = policy.check(action)
    assert not isinstance(pending, ExecutionDecision)
    with anyio.fail_after(scaled(10)):
        decision = await pending
    assert not decision.allowed and len(asked) == 1
    read = ExecutionAction(kind="read", operation="read", paths=(str(repo / "f"),))
    assert isinstance(policy.check(read), ExecutionDecision)
    with pytest.raises(TypeError, match="approve_writes"):
        CodingApprovalPolicy(roots=[repo], approve_writes="yes")  # type: ignore[arg-type]


def test_planted_commondir_cannot_make_allowlisted_git_run_code(repo: Path) -> None:
    marker = repo.parent / "PWNED"
    _plant_commondir_attack(repo, marker)
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, timeout=60)
    assert marker.exists(), "the attack must work against unhardened git (else the test is moot)"
    marker.unlink()
    for command in ("git status", "git diff", "git log -p", "git show", "git branch"):
        _run_allowed(repo, command)
        assert not marker.exists(), command


def test_implicit_bare_repository_is_refused(repo: Path) -> None:
    marker = repo.parent / "BARE"
    evil = repo / "evil"
    for sub in ("objects", "refs/heads"):
        (evil / sub).mkdir(parents=True)
    (evil / "HEAD").write_text("ref: refs/heads/main\n")
    (evil / "config").write_text(
        f'[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch {marker}; false"\n'
        f"[diff]\n\texternal = touch {marker}\n"
    )
    for command in ("git status", "git diff", "git log"):
        _run_allowed(repo, command, cwd=evil)
        assert not marker.exists(), command


def test_a_recheck_of_the_hardened_command_is_stable(repo: Path) -> None:
    first = _shell(repo, "git status")
    hardened = (first.modified or {})["command"]
    assert isinstance(hardened, str) and hardened.startswith(HARDENED_PREFIX)
    again = _shell(repo, hardened)
    assert again.allowed
    assert (again.modified or {})["command"] == hardened
    plain = _shell(repo, "ls")
    assert plain.allowed and plain.exclusive and plain.modified is None


def test_hardened_prefix_runs_in_posix_sh(repo: Path) -> None:
    decision = _shell(repo, "git status")
    final = (decision.modified or {})["command"]
    assert isinstance(final, str)
    result = subprocess.run(
        ["sh", "-c", final], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "On branch" in result.stdout
