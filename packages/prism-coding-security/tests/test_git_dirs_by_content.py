"""Git directories found by content, whatever their name: a bare ``remote.git`` in the workspace
keeps its hooks, in the sandbox and through the file tools (real git, real bwrap)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from prism.coding_security import BubblewrapSandbox, CodingApprovalPolicy
from prism.coding_security._protected import ProtectedPaths
from prism.coding_tools import ExecResult, create_coding_tools
from prism.core import AbortController, ToolExecutionContext
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

HOOK = "#!/bin/sh\ntouch {marker}\n"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=a", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def workspace(host_dir: Path) -> Path:
    """A workspace holding a bare repository ``remote.git`` and a clone outside it."""
    root = host_dir / "ws"
    root.mkdir()
    assert _git(root, "init", "-q", "--bare", "remote.git").returncode == 0
    clone = host_dir / "clone"
    assert _git(host_dir, "clone", "-q", str(root / "remote.git"), str(clone)).returncode == 0
    (clone / "f.txt").write_text("one\n")
    _git(clone, "add", "f.txt")
    assert _git(clone, "commit", "-qm", "one").returncode == 0
    return root


def _push(host_dir: Path) -> str:
    clone = host_dir / "clone"
    (clone / "f.txt").write_text(f"{os.urandom(4).hex()}\n")
    _git(clone, "commit", "-qam", "next")
    done = _git(clone, "push", "-q", "origin", "HEAD:refs/heads/main")
    return done.stdout + done.stderr


PLANTS = (
    "printf '#!/bin/sh\\ntouch {marker}\\n' > remote.git/hooks/post-receive",
    "chmod +x remote.git/hooks/post-receive",
    "printf '[core]\\n\\thooksPath = /tmp\\n' >> remote.git/config",
    "mkdir -p vendor && git init -q --bare vendor/lib.git",
    "printf '#!/bin/sh\\ntouch {marker}\\n' > vendor/lib.git/hooks/post-receive",
)


@pytest.mark.usefixtures("bwrap_ready")
@pytest.mark.parametrize("git", ["all", "code"])
async def test_a_bare_repository_in_the_workspace_keeps_its_hooks(
    workspace: Path, host_dir: Path, run_sandboxed: RunSandbox, git: str
) -> None:
    marker = host_dir / "pwned"
    sandbox = BubblewrapSandbox(root=workspace, git=git)  # type: ignore[arg-type]
    script = "; ".join(p.format(marker=marker) for p in PLANTS) + "; true"
    _, output = await run_sandboxed(sandbox, script, workspace)
    assert not (workspace / "remote.git" / "hooks" / "post-receive").exists()
    assert "hooksPath" not in (workspace / "remote.git" / "config").read_text()
    assert not (workspace / "vendor" / "lib.git").exists()  # a new git directory is removed
    assert "removed" in output
    _push(host_dir)  # the host's next push to the bare repository runs its hooks
    assert not marker.exists()


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_directory_turned_into_a_git_directory_is_removed(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "plain"
    (root / "data").mkdir(parents=True)
    script = (
        "cd data && mkdir -p objects refs/heads hooks && echo 'ref: refs/heads/main' > HEAD && "
        "printf '#!/bin/sh\\necho PWNED\\n' > hooks/post-receive; true"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), script, root)
    assert not (root / "data" / "hooks" / "post-receive").exists()
    assert f"removed {root / 'data'}" in output


def test_the_scan_finds_git_directories_of_any_name(workspace: Path) -> None:
    (workspace / "wt").mkdir()
    _git(workspace, "init", "-q", "plain-repo")
    found = ProtectedPaths().existing_under(str(workspace))
    assert str(workspace / "remote.git") in found
    assert str(workspace / "plain-repo" / ".git") in found
    assert not any(path.startswith(str(workspace / "remote.git") + "/") for path in found)


async def test_the_write_tool_cannot_plant_a_hook_in_a_bare_repository(workspace: Path) -> None:
    approved: list[object] = []

    async def approve(request: object) -> bool:
        approved.append(request)
        return True

    policy = CodingApprovalPolicy(roots=[workspace], approve=approve)
    tools = {t.name: t for t in create_coding_tools(workspace, execution_policy=policy)}
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )
    for path in ("remote.git/hooks/post-receive", "remote.git/config", "remote.git/HEAD"):
        with anyio.fail_after(scaled(30)):
            result = await tools["write"].execute({"path": path, "content": "x"}, context)
        assert result.error is not None, path
        assert "git metadata" in result.error.message
    assert not (workspace / "remote.git" / "hooks" / "post-receive").exists()
    assert approved == []


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_hooks_path_in_another_writable_root_is_read_only(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    first, second = host_dir / "a", host_dir / "b"
    assert _git(host_dir, "init", "-q", str(first)).returncode == 0
    (second / "hooks").mkdir(parents=True)
    (second / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    assert _git(first, "config", "core.hooksPath", "../b/hooks").returncode == 0
    sandbox = BubblewrapSandbox(root=first, writable=[second])
    script = "echo 'touch /tmp/pwned' >> ../b/hooks/pre-commit; echo ok > ../b/other.txt; true"
    await run_sandboxed(sandbox, script, first)
    assert (second / "hooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert (second / "other.txt").read_text() == "ok\n"
