"""Plants the host runs later: every host-executed path, through the real file tools, the shell
policy and the real sandbox. Each entry of ``HOST_EXECUTED_PATHS`` has a sample path here."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security import (
    ApprovalRequest,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    analyze_command,
)
from prism.coding_security._host_run import HOST_EXECUTED_PATHS, VENV_BIN
from prism.coding_security._protected import ProtectedPaths
from prism.coding_tools import ExecResult, create_coding_tools
from prism.core import AbortController, ToolDefinition, ToolExecutionContext, ToolResult
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = pytest.mark.anyio

SAMPLES: dict[str, str] = {
    ".envrc": "app/.envrc",
    ".vscode": ".vscode/tasks.json",
    ".idea": ".idea/workspace.xml",
    ".devcontainer": ".devcontainer/devcontainer.json",
    ".devcontainer.json": ".devcontainer.json",
    ".mcp.json": ".mcp.json",
    ".claude": ".claude/settings.json",
    ".ripgreprc": ".ripgreprc",
    ".husky": ".husky/pre-commit",
    ".githooks": ".githooks/pre-push",
    ".git-hooks": "tools/.git-hooks/pre-commit",
    "lefthook*.y*ml": "lefthook-local.yaml",
    ".lefthook*": ".lefthook/pre-commit/run.sh",
    ".pre-commit-config.yaml": ".pre-commit-config.yaml",
    ".overcommit.yml": ".overcommit.yml",
    "site-packages/*.pth": ".venv/lib/python3.12/site-packages/zz-evil.pth",
    "dist-packages/*.pth": "env/lib/python3/dist-packages/evil.pth",
    "sitecustomize.py": "src/sitecustomize.py",
    "usercustomize.py": ".venv/lib/python3.12/site-packages/usercustomize.py",
    "pyvenv.cfg": "env/pyvenv.cfg",
    "bin/activate*": "py/bin/activate.fish",
    ".venv/bin": ".venv/bin/pytest",
    "venv/bin": "venv/bin/python",
    ".npmrc": "web/.npmrc",
    ".yarnrc": ".yarnrc",
    ".yarnrc.yml": "web/.yarnrc.yml",
    ".pnpmfile.cjs": ".pnpmfile.cjs",
    ".cargo/config": ".cargo/config",
    ".cargo/config.toml": "crate/.cargo/config.toml",
    "mise.toml": "mise.toml",
    ".mise.toml": ".mise.toml",
    "*.code-workspace": "proj.code-workspace",
    ".zed": ".zed/tasks.json",
    ".exrc": "sub/.exrc",
    ".nvimrc": ".nvimrc",
    ".nvim.lua": ".nvim.lua",
    "mise.*.toml": "mise.local.toml",
    ".mise.*.toml": ".mise.local.toml",
    ".config/mise": ".config/mise/config.toml",
    "mise/config*.toml": "mise/config.toml",
    ".mise": ".mise/config.toml",
    ".lintstagedrc*": ".lintstagedrc.json",
    "lint-staged.config.*": "lint-staged.config.js",
    "commitlint.config.*": "commitlint.config.js",
    ".commitlintrc*": ".commitlintrc.yml",
    ".huskyrc*": ".huskyrc.json",
    ".simple-git-hooks*": ".simple-git-hooks.json",
    "simple-git-hooks.*": "simple-git-hooks.cjs",
    "lefthook*.toml": "lefthook.toml",
    "lefthook*.json": "lefthook.json",
    "bunfig.toml": "bunfig.toml",
    ".yarn/releases": ".yarn/releases/yarn-4.1.0.cjs",
    ".yarn/plugins": ".yarn/plugins/plugin.cjs",
    ".yarn/sdks": ".yarn/sdks/eslint/bin/eslint.js",
    "node_modules/.bin": "node_modules/.bin/jest",
    ".pixi/envs/*/bin": ".pixi/envs/default/bin/python",
    "etc/conda/activate.d": ".pixi/envs/default/etc/conda/activate.d/x.sh",
    "etc/conda/deactivate.d": "env/etc/conda/deactivate.d/x.sh",
    "rust-toolchain.toml": "rust-toolchain.toml",
    "rust-toolchain": "rust-toolchain",
    ".envrc.*": ".envrc.local",
    ".bash_aliases": ".bash_aliases",
    ".config/fish": ".config/fish/config.fish",
    ".local/bin": ".local/bin/git",
    ".config/systemd": ".config/systemd/user/evil.service",
    ".config/autostart": ".config/autostart/evil.desktop",
    ".config/environment.d": ".config/environment.d/10-evil.conf",
    ".ipython": ".ipython/profile_default/startup/00-evil.py",
    ".config/git": ".config/git/config",
    ".ssh/config": ".ssh/config",
    ".ssh/rc": ".ssh/rc",
    ".ssh/environment": ".ssh/environment",
    ".ssh/authorized_keys*": ".ssh/authorized_keys",
    ".aws/config": ".aws/config",
    ".kube/config": ".kube/config",
    ".docker/config.json": ".docker/config.json",
    "__pycache__/sitecustomize.*": "lib/__pycache__/sitecustomize.cpython-312.pyc",
    "__pycache__/usercustomize.*": "__pycache__/usercustomize.cpython-312.pyc",
    ".bashrc": ".bashrc",
    ".bash_profile": ".bash_profile",
    ".bash_login": ".bash_login",
    ".bash_logout": ".bash_logout",
    ".profile": ".profile",
    ".zshrc": ".zshrc",
    ".zshenv": ".zshenv",
    ".zprofile": ".zprofile",
    ".zlogin": ".zlogin",
    ".zlogout": ".zlogout",
}
"""One concrete path per entry of the list (a new entry without a sample fails a test)."""
PLANT = "import os; os.system('touch /tmp/prism-pwned')\n"


def test_every_entry_of_the_list_has_a_sample_and_a_reason() -> None:
    assert sorted(SAMPLES) == sorted(entry.pattern for entry in HOST_EXECUTED_PATHS)
    assert all(len(entry.why) > 20 for entry in HOST_EXECUTED_PATHS)


def test_docs_list_every_entry_with_its_reason() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text()
    for entry in (*HOST_EXECUTED_PATHS, VENV_BIN):
        assert f"| `{entry.pattern}` | {entry.why} |" in page, entry.pattern


def _context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


class Approver:
    """A host approval prompt that answers ``answer`` and records what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.asked.append(request.reason)
        return self.answer


def _tools(root: Path, approver: Approver | None) -> dict[str, ToolDefinition]:
    policy = CodingApprovalPolicy(roots=[root], approve=approver)
    return {tool.name: tool for tool in create_coding_tools(root, execution_policy=policy)}


async def _run(tool: ToolDefinition, arguments: dict[str, object]) -> ToolResult:
    with anyio.fail_after(scaled(30)):
        return await tool.execute(arguments, _context())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    real = tmp_path.resolve() / "ws"
    real.mkdir()
    return real


@pytest.mark.parametrize("sample", sorted(SAMPLES.values()))
async def test_the_write_tool_plants_nothing_without_approval(root: Path, sample: str) -> None:
    declined = Approver(answer=False)
    result = await _run(_tools(root, declined)["write"], {"path": sample, "content": PLANT})
    assert result.error is not None
    assert not (root / sample).exists()
    assert declined.asked and "host-executed" in declined.asked[0]
    unasked = await _run(_tools(root, None)["write"], {"path": sample, "content": PLANT})
    assert unasked.error is not None
    assert not (root / sample).exists()


async def test_the_user_may_approve_a_host_executed_write_and_edit(root: Path) -> None:
    approver = Approver(answer=True)
    tools = _tools(root, approver)
    path = ".vscode/settings.json"
    written = await _run(tools["write"], {"path": path, "content": '{"a": 1}\n'})
    assert written.error is None
    edit = {"path": path, "edits": [{"old_text": '"a": 1', "new_text": '"a": 2'}]}
    edited = await _run(tools["edit"], edit)
    assert edited.error is None, edited.error
    assert (root / path).read_text() == '{"a": 2}\n'
    assert len(approver.asked) == 2
    declined = _tools(root, Approver(answer=False))
    refused = await _run(declined["edit"], {**edit, "edits": [{"old_text": "2", "new_text": "3"}]})
    assert refused.error is not None
    assert (root / path).read_text() == '{"a": 2}\n'


async def test_git_metadata_stays_denied_even_with_an_approver(root: Path) -> None:
    approver = Approver(answer=True)
    await anyio.run_process(["git", "init", "-q", str(root)])
    result = await _run(
        _tools(root, approver)["write"], {"path": ".git/hooks/pre-commit", "content": "x"}
    )
    assert result.error is not None
    assert approver.asked == []
    assert not (root / ".git" / "hooks" / "pre-commit").exists()


@pytest.mark.parametrize("sample", sorted(SAMPLES.values()))
def test_a_shell_redirection_into_a_host_executed_path_is_not_allowed(
    root: Path, sample: str
) -> None:
    for command in (f"echo x > {shlex.quote(sample)}", f"cat a.txt >> {shlex.quote(sample)}"):
        verdict = analyze_command(command, cwd=str(root), roots=[str(root)], home=None)
        assert verdict.decision != "allow", (command, verdict)


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_sandbox_keeps_existing_plants_read_only_and_removes_new_ones(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    existing = [SAMPLES[p] for p in ("site-packages/*.pth", "bin/activate*", ".husky", ".npmrc")]
    existing.append("tools/env/bin/pip")  # a venv found by its pyvenv.cfg
    (root / "tools" / "env").mkdir(parents=True)
    (root / "tools" / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for sample in existing:
        (root / sample).parent.mkdir(parents=True, exist_ok=True)
        (root / sample).write_text("original\n")
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    new = [s for s in SAMPLES.values() if s not in existing and not s.startswith(".venv/bin")]
    script = "; ".join(
        [f"echo PWNED >> {shlex.quote(s)}" for s in existing]
        + [f"mkdir -p $(dirname {shlex.quote(s)}) && echo PWNED > {shlex.quote(s)}" for s in new]
        + ["echo fine >> src/app.py", "true"]
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), script, root)
    for sample in existing:
        assert (root / sample).read_text() == "original\n", sample
    for sample in new:
        assert not (root / sample).exists(), sample
        assert f"removed {root / sample.split('/')[0]}" in output or "removed" in output
    planted = [p for p in root.rglob("*") if p.is_file() and "PWNED" in p.read_text()]
    assert planted == []
    assert (root / "src" / "app.py").read_text() == "x = 1\nfine\n"


_PLAIN = st.text(alphabet="abcxyz019_-", min_size=1, max_size=8)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    sample=st.sampled_from(sorted(SAMPLES.values())),
    prefix=st.lists(_PLAIN, max_size=3),
    below=st.lists(_PLAIN, max_size=2),
    upper=st.booleans(),
)
def test_a_sample_is_protected_at_any_depth_and_in_any_case(
    sample: str, prefix: list[str], below: list[str], upper: bool
) -> None:
    relative = "/".join([*prefix, sample.upper() if upper else sample])
    found = ProtectedPaths().reason("/ws/" + relative, ["/ws"])
    assert found is not None and "host-executed" in found, relative
    if sample.rsplit("/", 1)[-1].startswith(".") or "/" in sample:
        deeper = "/".join([relative, *below])
        assert ProtectedPaths().reason("/ws/" + deeper, ["/ws"]) is not None
    plain = "/".join([*prefix, *below, "app.py"])
    assert ProtectedPaths(git="code").reason("/ws/" + plain, ["/ws"]) is None


@pytest.mark.parametrize("venv", [".tox/py311", "env", "tools/.direnv/python-3.12"])
async def test_a_virtual_environment_of_any_name_is_found_by_its_pyvenv_cfg(
    root: Path, venv: str
) -> None:
    (root / venv / "bin").mkdir(parents=True)
    (root / venv / "bin" / "pytest").write_text("#!/bin/sh\n")
    (root / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "plain" / "bin").mkdir(parents=True)
    declined = Approver(answer=False)
    tools = _tools(root, declined)
    result = await _run(tools["write"], {"path": f"{venv}/bin/pytest", "content": PLANT})
    assert result.error is not None
    assert (root / venv / "bin" / "pytest").read_text() == "#!/bin/sh\n"
    assert declined.asked and "pyvenv.cfg" in declined.asked[0]
    plain = await _run(tools["write"], {"path": "plain/bin/tool", "content": "echo\n"})
    assert plain.error is None
    found = ProtectedPaths().existing_under(str(root))
    assert str(root / venv / "bin") in found
    assert str(root / "plain" / "bin") not in found
