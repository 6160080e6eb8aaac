"""Secrets masked inside the sandbox: planted credentials never reach the command's output."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from prism.coding_security import BubblewrapSandbox
from prism.coding_tools import ExecResult

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap_ready")]

SECRET = "prism-planted-secret-5f1d9c"


@pytest.fixture
def home(host_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host HOME with credentials in every default location (some behind symlinks)."""
    home = host_dir / "home"
    for relative in (
        ".ssh/id_rsa",
        ".aws/credentials",
        ".config/gcloud/credentials.db",
        ".azure/accessTokens.json",
        ".gnupg/private-keys-v1.d/key",
        ".netrc",
        ".docker/config.json",
        ".kube/config",
    ):
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{SECRET} {relative}\n")
    real = host_dir / "elsewhere-kube"
    (home / ".kube").rename(real)
    (home / ".kube").symlink_to(real)
    monkeypatch.setenv("HOME", str(home))
    return home


def _reads(home: Path) -> str:
    files = " ".join(
        shlex.quote(str(p)) for p in sorted(home.rglob("*")) if p.is_file() or p.is_symlink()
    )
    return (
        f"cat {files} 2>&1; cat ~/.kube/config ~/.ssh/id_rsa 2>&1; "
        f"grep -r {SECRET} {shlex.quote(str(home))} 2>&1 | head -3; "
        "cat /etc/shadow /etc/gshadow 2>&1 | head -3; ls -la ~/.ssh/ 2>&1; true"
    )


def _first_shadow_entry() -> str | None:
    try:
        with open("/etc/shadow", encoding="utf-8") as handle:
            return handle.read().split(":", 1)[0] or None
    except OSError:
        return None


async def test_default_secrets_are_masked(home: Path, run_sandboxed: RunSandbox) -> None:
    workspace = home.parent / "ws"
    workspace.mkdir()
    sandbox = BubblewrapSandbox(root=workspace)
    assert sandbox.capabilities.secrets_masked
    result, output = await run_sandboxed(sandbox, _reads(home), workspace)
    assert result.exit_code == 0
    assert SECRET not in output
    first = _first_shadow_entry()
    if first is not None:
        assert f"{first}:" not in output  # no shadow entry leaked
    assert "ls: cannot open directory" in output  # the masked ~/.ssh cannot even be listed


async def test_extra_deny_read_paths_and_the_allow_read_mode(
    home: Path, host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    workspace = host_dir / "ws"
    workspace.mkdir()
    (host_dir / "private.txt").write_text(SECRET)
    denied = BubblewrapSandbox(root=workspace, deny_read=[str(host_dir / "private.txt")])
    assert not denied.capabilities.secrets_masked  # the default list was dropped
    _, output = await run_sandboxed(denied, f"cat {host_dir}/private.txt; true", workspace)
    assert SECRET not in output
    allow = BubblewrapSandbox(root=workspace, read_mode="allow")
    assert allow.capabilities.secrets_masked
    script = (
        f"cat {host_dir}/private.txt {home}/.netrc 2>&1; ls /var /root 2>&1; "
        "echo ok > in-root.txt && cat in-root.txt; /usr/bin/python3 -c 'print(6*7)'"
    )
    result, output = await run_sandboxed(allow, script, workspace)
    assert SECRET not in output
    assert "No such file" in output
    assert "ok" in output
    assert "42" in output
    assert result.exit_code == 0
