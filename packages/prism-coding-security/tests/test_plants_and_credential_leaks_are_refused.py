"""Red-team findings against the host-run, git-directory and credential lists (issue 26), closed.

Each test starts from a working attack with real bwrap, real tools and real files, and asserts the
safe behaviour. A control in each test proves the attack is live (the same setup with a path the
lists covered before is refused, or the host really runs what was planted). The design of each
fix is in docs/security.md ("Protected paths", "Secrets", "Credential locations").
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security import (
    BubblewrapSandbox,
    CodingApprovalPolicy,
    SandboxUnavailableError,
    analyze_command,
    create_sandbox_bash_operations,
)
from prism.coding_security._sandbox._guard import printable_path
from prism.coding_tools import ShellOptions, create_coding_tools
from prism.core.testing import scaled

from ._redteam import (
    RunSandbox,
    host_git_env,
    host_python_runs,
    make_venv,
    policy_tools,
    run_tool,
)

pytestmark = pytest.mark.anyio


# --- F1: the scan-limit overflow keeps every plant below the root's first level ----------------


@pytest.mark.usefixtures("bwrap_ready")
@pytest.mark.parametrize(
    ("scan_limit", "flood"),
    [
        pytest.param(200, 400, id="past-the-scan-limit"),
        pytest.param(20, 1000, id="past-every-walk-bound"),  # clean-up walk: 400
    ],
)
async def test_a_flood_does_not_leave_a_site_packages_pth_the_host_runs(
    host_dir: Path, run_sandboxed: RunSandbox, scan_limit: int, flood: int
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    site = make_venv(root)
    marker = host_dir / "pwned-by-pth"
    plant = f"import os; open({str(marker)!r}, 'w').close()\n"
    relative = site.relative_to(root) / "zz-evil.pth"
    sandbox = BubblewrapSandbox(root=root, protected_scan_limit=scan_limit)
    command = (
        f"printf %s {shlex.quote(plant)} > {shlex.quote(str(relative))}; "
        f"mkdir flood; for i in $(seq {flood}); do : > flood/f$i; done"
    )
    with pytest.raises(SandboxUnavailableError, match="untrusted"):
        await run_sandboxed(sandbox, command, root)
    # The error is raised, but the plant stays on disk: the host's next Python start runs it.
    assert not (root / relative).exists()
    assert not host_python_runs(root, marker)


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_moved_repository_keeps_its_history_but_not_new_code_parts(
    project_root: Path, run_sandboxed: RunSandbox
) -> None:
    root = project_root
    sandbox = BubblewrapSandbox(root=root, git="code")
    command = (
        "mv proj proj2 && printf '[core]\\n\\tpager = touch /tmp/x\\n' > proj2/.git/config.worktree"
    )
    _, output = await run_sandboxed(sandbox, command, root)
    assert (root / "proj2" / ".git" / "HEAD").exists(), output
    assert not (root / "proj2" / ".git" / "config.worktree").exists(), output
    assert "history" in _git_log(root / "proj2")


def _git_log(directory: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(directory), "log", "--oneline"],
        capture_output=True,
        text=True,
        check=True,
        timeout=scaled(30),
    ).stdout


# --- F2: a bare repository whose HEAD is a symbolic link is not recognised as a git directory ---


def _bare_repo_with_symlinked_head(root: Path) -> Path:
    bare = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True, timeout=scaled(30))
    (bare / "HEAD").unlink()
    (bare / "HEAD").symlink_to("refs/heads/main")  # git still accepts it (validate_headref)
    check = subprocess.run(
        ["git", "-C", str(bare), "rev-parse", "--is-bare-repository"],
        capture_output=True,
        text=True,
        check=True,
        timeout=scaled(30),
    )
    assert check.stdout.strip() == "true"
    return bare


def _host_pushes(root: Path, bare: Path) -> None:
    """The user's next ``git push`` to the workspace remote, on the host."""
    clone = root.parent / "clone"
    env = host_git_env(root.parent)
    for args in (
        ["init", "-q", "-b", "main", str(clone)],
        ["-C", str(clone), "commit", "-q", "--allow-empty", "-m", "x"],
        ["-C", str(clone), "push", "-q", str(bare), "main"],
    ):
        subprocess.run(["git", *args], check=True, timeout=scaled(60), env=env)


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_bare_repository_with_a_symlinked_head_keeps_its_hooks_read_only(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    bare = _bare_repo_with_symlinked_head(root)
    marker = host_dir / "pwned-by-post-receive"
    hook = f"#!/bin/sh\ntouch {marker}\n"
    command = (
        f"printf %s {shlex.quote(hook)} > remote.git/hooks/post-receive; "
        "chmod +x remote.git/hooks/post-receive"
    )
    await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    _host_pushes(root, bare)
    assert not marker.exists(), "the host ran a hook planted by a sandboxed command"
    # The write tool (policy) lets the same plant through without approval too.
    written = await run_tool(
        policy_tools(root)["write"], {"path": "remote.git/hooks/pre-receive", "content": hook}
    )
    assert written.error is not None


# --- F3: the module a protected .pth imports is not protected ------------------------------------

DISTUTILS_PTH = (
    "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; "
    "enabled = os.environ.get(var, 'local') == 'local'; "
    "enabled and __import__('_distutils_hack').add_shim(); \n"
)
"""setuptools' ``distutils-precedence.pth``, present in every venv that has setuptools."""


def _venv_with_setuptools_shim(root: Path) -> Path:
    site = make_venv(root)
    (site / "distutils-precedence.pth").write_text(DISTUTILS_PTH)
    (site / "_distutils_hack").mkdir()
    (site / "_distutils_hack" / "__init__.py").write_text("def add_shim():\n    pass\n")
    return site


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_module_a_pth_imports_at_every_start_stays_read_only(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    site = _venv_with_setuptools_shim(root)
    marker = host_dir / "pwned-by-shim"
    assert not host_python_runs(root, marker)
    shim = site.relative_to(root) / "_distutils_hack" / "__init__.py"
    payload = f"import os; open({str(marker)!r}, 'w').close()\n"
    command = f"printf %s {shlex.quote(payload)} >> {shlex.quote(str(shim))}"
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    # control: the .pth itself is protected inside the same sandbox
    pth = site.relative_to(root) / "distutils-precedence.pth"
    await run_sandboxed(BubblewrapSandbox(root=root), f"echo x >> {shlex.quote(str(pth))}", root)
    assert (site / "distutils-precedence.pth").read_text() == DISTUTILS_PTH
    assert not host_python_runs(root, marker), output


async def test_the_write_tool_asks_before_rewriting_a_module_a_pth_imports(
    host_dir: Path,
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    site = _venv_with_setuptools_shim(root)
    marker = host_dir / "pwned-by-shim"
    tools = policy_tools(root)
    shim = str(site.relative_to(root) / "_distutils_hack" / "__init__.py")
    payload = f"import os\ndef add_shim():\n    open({str(marker)!r}, 'w').close()\n"
    control = await run_tool(
        tools["write"],
        {"path": str(site.relative_to(root) / "distutils-precedence.pth"), "content": "x"},
    )
    assert control.error is not None  # the .pth is on the list
    written = await run_tool(tools["write"], {"path": shim, "content": payload})
    assert written.error is not None
    assert not host_python_runs(root, marker)


# --- F4: host-run configuration files missing from HOST_EXECUTED_PATHS ---------------------------

MISSING_HOST_RUN: dict[str, str] = {
    "mise.local.toml": "mise: [hooks] enter / [env] _.source run when the user enters",
    ".mise.local.toml": "mise: local config, same hooks",
    ".config/mise/config.toml": "mise: project config location, same hooks",
    "mise/config.toml": "mise: project config location, same hooks",
    ".lintstagedrc.json": "lint-staged: commands run by the husky pre-commit hook",
    "lint-staged.config.js": "lint-staged: JavaScript run by the husky pre-commit hook",
    "commitlint.config.js": "commitlint: JavaScript run by the husky commit-msg hook",
    ".huskyrc.json": "husky v4: hook commands",
    ".simple-git-hooks.json": "simple-git-hooks: hook commands",
    "lefthook.toml": "lefthook: same role as lefthook.yml (toml/json are accepted)",
    "lefthook.json": "lefthook: same role as lefthook.yml",
    "bunfig.toml": "bun: preload scripts run at every bun run/test",
    ".yarn/releases/yarn-4.1.0.cjs": "yarnPath's program: runs for every yarn command",
    ".yarn/plugins/plugin.cjs": "yarn plugins load at every yarn command",
    ".pixi/envs/default/bin/python": "pixi environment interpreter (conda layout, no pyvenv.cfg)",
    ".pixi/envs/default/etc/conda/activate.d/x.sh": "sourced by pixi shell / pixi run",
    "node_modules/.bin/jest": "npm test / npx run it (as .venv/bin for Python)",
    "rust-toolchain.toml": "rustup: toolchain.path names the rustc/cargo every cargo runs",
    ".envrc.local": "sourced by the common `source_env_if_exists .envrc.local` in .envrc",
}
"""Relative path -> why the user's machine runs it later (none of them is refused today)."""


@pytest.mark.parametrize("relative", sorted(MISSING_HOST_RUN))
async def test_the_write_tool_asks_before_planting_other_host_run_files(
    host_dir: Path, relative: str
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    tools = policy_tools(root)
    control = await run_tool(tools["write"], {"path": "mise.toml", "content": "[hooks]\n"})
    assert control.error is not None  # the listed sibling needs approval (denied here)
    written = await run_tool(tools["write"], {"path": relative, "content": "x = 1\n"})
    assert written.error is not None, MISSING_HOST_RUN[relative]
    assert not (root / relative).exists()


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_sandbox_removes_other_host_run_files_it_creates(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    plants = [*sorted(MISSING_HOST_RUN), "mise.toml"]
    command = "; ".join(
        f"mkdir -p $(dirname {shlex.quote(p)}) && echo PWNED > {shlex.quote(p)}" for p in plants
    )
    await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert not (root / "mise.toml").exists()  # control: a listed entry is removed
    survivors = [p for p in plants if (root / p).exists()]
    assert survivors == []


# --- F5: start-up files of the user's home when the home is a root -------------------------------

HOME_START_UP = [
    ".bash_aliases",  # sourced by Debian/Ubuntu's default ~/.bashrc
    ".config/fish/config.fish",
    ".local/bin/git",  # first on PATH via Debian/Ubuntu's default ~/.profile: shadows git
    ".config/systemd/user/default.target.wants/evil.service",
    ".config/autostart/evil.desktop",
    ".config/environment.d/10-evil.conf",  # LD_PRELOAD etc. for the user session
    ".ipython/profile_default/startup/00-evil.py",
]


@pytest.mark.parametrize("relative", HOME_START_UP)
async def test_the_write_tool_asks_before_planting_in_a_home_that_is_a_root(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch, relative: str
) -> None:
    home = host_dir / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    tools = policy_tools(home)
    control = await run_tool(tools["write"], {"path": "~/.bashrc", "content": "x\n"})
    assert control.error is not None
    written = await run_tool(tools["write"], {"path": f"~/{relative}", "content": "x\n"})
    assert written.error is not None
    assert not (home / relative).exists()


# --- F6: credential stores missing from CREDENTIAL_LOCATIONS -------------------------------------

MISSING_CREDENTIALS = [
    ".gemini/oauth_creds.json",  # Gemini CLI OAuth (Claude and Codex are listed)
    ".config/github-copilot/apps.json",  # GitHub Copilot OAuth token
    ".config/github-copilot/hosts.json",
    ".pulumi/credentials.json",
    ".config/containers/auth.json",  # podman/buildah/skopeo registry passwords
    ".wrangler/config/default.toml",  # Cloudflare OAuth token
    ".config/configstore/firebase-tools.json",
    ".sentryclirc",
    ".config/stripe/config.toml",
    ".config/hcloud/cli.toml",
    ".ngrok2/ngrok.yml",  # ngrok v2 location (v3's ~/.config/ngrok is listed)
    ".config/helm/repositories.yaml",
    ".bash_history",  # `export TOKEN=…` typed by the user
]


@pytest.fixture
def secret_home(host_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = host_dir / "home"
    for index, relative in enumerate([".npmrc", *MISSING_CREDENTIALS]):
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(f"token=SECRET-{index:03d}-zq\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.usefixtures("bwrap_ready")
async def test_other_credential_stores_are_masked_in_the_sandbox(
    secret_home: Path, host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    command = "; ".join(
        f"cat {shlex.quote(str(secret_home / p))}" for p in [".npmrc", *MISSING_CREDENTIALS]
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "SECRET-000" not in output  # control: ~/.npmrc is masked
    leaked = [p for i, p in enumerate(MISSING_CREDENTIALS, 1) if f"SECRET-{i:03d}" in output]
    assert leaked == []


async def test_the_read_tool_refuses_other_credential_stores(secret_home: Path) -> None:
    tools = policy_tools(secret_home)  # the home is the workspace root
    control = await run_tool(tools["read"], {"path": "~/.npmrc"})
    assert control.error is not None
    leaked = []
    for relative in MISSING_CREDENTIALS:
        result = await run_tool(tools["read"], {"path": f"~/{relative}"})
        if result.error is None:
            leaked.append(relative)
    assert leaked == []


@pytest.mark.usefixtures("bwrap_ready")
async def test_credentials_under_a_relocated_xdg_config_home_are_masked(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch, run_sandboxed: RunSandbox
) -> None:
    home = host_dir / "home"
    xdg = home / "xdg"  # XDG_CONFIG_HOME set by the user: gh, glab, rclone, git follow it
    for relative in ("gh/hosts.yml", "git/credentials", "rclone/rclone.conf"):
        (xdg / relative).parent.mkdir(parents=True)
        (xdg / relative).write_text(f"oauth_token: XDG-SECRET-{relative}\n")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: DEFAULT-SECRET\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    root = host_dir / "ws"
    root.mkdir()
    command = f"cat {home}/.config/gh/hosts.yml; cat {xdg}/gh/hosts.yml {xdg}/git/credentials"
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "DEFAULT-SECRET" not in output  # control
    assert "XDG-SECRET" not in output


# --- F7: a non-UTF-8 file name makes exec raise instead of returning ------------------------------


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_removed_plant_with_a_non_utf8_name_is_reported_not_raised(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    command = "mkdir $'\\xff' && echo 'echo pwned' > $'\\xff'/.envrc"
    result, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert not os.path.lexists(os.fsencode(root) + b"/\xff/.envrc")  # noqa: ASYNC240
    assert "removed" in output
    assert result.exit_code == 0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(raw=st.binary(max_size=40), extra=st.text(max_size=10))
def test_any_file_name_makes_a_notice_that_encodes(raw: bytes, extra: str) -> None:
    """Whatever bytes a name holds (and any lone surrogate), the notice text is valid UTF-8."""
    name = os.fsdecode(raw) + extra
    shown = printable_path(name)
    shown.encode("utf-8")
    if raw.isascii() and extra.isascii():
        assert shown == name


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_bare_repository_made_during_the_command_with_a_symlinked_head_is_removed(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    marker = host_dir / "pwned-by-post-receive"
    command = (
        "mkdir -p r.git/objects r.git/refs/heads r.git/hooks && ln -s refs/heads/main r.git/HEAD"
        f" && printf '#!/bin/sh\\ntouch {marker}\\n' > r.git/hooks/post-receive"
        " && chmod +x r.git/hooks/post-receive"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert (root / "r.git" / "hooks" / "post-receive").exists() is False, output
    if (root / "r.git").exists():
        _host_pushes(root, root / "r.git")
    assert not marker.exists()


# --- F8: the target of a symlinked hook or host-executed entry is writable ------------------------


def _commit_on_host(root: Path) -> None:
    env = host_git_env(root.parent)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", "x"],
        check=False,
        timeout=scaled(60),
        env=env,
    )


def _repo_with_symlinked_hook(root: Path) -> None:
    """The common layout: hooks kept in the tree, ``.git/hooks/pre-commit`` a symlink to one."""
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=scaled(30))
    (root / "scripts").mkdir()
    (root / "scripts" / "pre-commit.sh").write_text("#!/bin/sh\ntrue\n")
    (root / "scripts" / "pre-commit.sh").chmod(0o755)
    (root / ".git" / "hooks" / "pre-commit").symlink_to("../../scripts/pre-commit.sh")


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_script_a_git_hook_symlink_points_to_stays_read_only(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    _repo_with_symlinked_hook(root)
    marker = host_dir / "pwned-by-hook"
    _commit_on_host(root)
    assert not marker.exists()
    command = f"echo 'touch {marker}' >> scripts/pre-commit.sh"
    await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    _commit_on_host(root)  # the user's next commit runs .git/hooks/pre-commit
    assert not marker.exists()


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_dangling_hook_symlink_whose_target_the_command_creates_does_not_run(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    _repo_with_symlinked_hook(root)
    (root / "scripts" / "pre-commit.sh").unlink()  # the hook is installed, its script not yet
    marker = host_dir / "pwned-by-hook"
    command = (
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > scripts/pre-commit.sh"
        " && chmod +x scripts/pre-commit.sh"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    _commit_on_host(root)
    assert not marker.exists(), output


async def test_the_write_tool_asks_before_writing_through_a_hook_or_envrc_symlink(
    host_dir: Path,
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    _repo_with_symlinked_hook(root)
    (root / "tools").mkdir()
    (root / "tools" / "envrc.sh").write_text("export A=1\n")
    (root / ".envrc").symlink_to("tools/envrc.sh")  # the sandbox binds this target read-only
    (root / "app").mkdir()
    tools = policy_tools(root)
    control = await run_tool(tools["write"], {"path": "app/.envrc", "content": "x\n"})
    assert control.error is not None  # a plain .envrc needs approval (denied here)
    for target in (".envrc", "tools/envrc.sh", "scripts/pre-commit.sh"):
        written = await run_tool(tools["write"], {"path": target, "content": "touch /tmp/x\n"})
        assert written.error is not None, target
    assert (root / "tools" / "envrc.sh").read_text() == "export A=1\n"


# --- F9: a protected module runs from a planted __pycache__ entry --------------------------------

_PYC = """
import importlib._bootstrap_external as be, os, sys
source = sys.argv[1]
stat = os.stat(source)
code = compile(sys.argv[2], os.path.abspath(source), "exec")
cache = os.path.join(os.path.dirname(source), "__pycache__")
os.makedirs(cache, exist_ok=True)
name = "sitecustomize." + sys.implementation.cache_tag + ".pyc"
with open(os.path.join(cache, name), "wb") as out:
    out.write(be._code_to_timestamp_pyc(code, stat.st_mtime, stat.st_size))
"""
"""Bytecode whose header matches the protected source's mtime and size: Python runs it instead."""


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_protected_sitecustomize_cannot_be_replaced_through_its_bytecode_cache(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    site = make_venv(root)
    (site / "sitecustomize.py").write_text("# a tool's start-up hook, on the list\n")
    marker = host_dir / "pwned-by-pyc"
    assert not host_python_runs(root, marker)
    source = str((site / "sitecustomize.py").relative_to(root))
    payload = f"open({str(marker)!r}, 'w').close()"
    control = f"echo x >> {shlex.quote(source)}"  # the source itself is read-only
    command = (
        f"{control}; python3 -c {shlex.quote(_PYC)} {shlex.quote(source)} {shlex.quote(payload)}"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "Read-only file system" in output
    assert not host_python_runs(root, marker)


# --- F10: with the home as a root, missing credential files can be created as code --------------


def _ssh_runs_proxy_command(config: Path) -> None:
    """The user's next ssh (a ``git push`` over ssh) reads ``~/.ssh/config`` on the host."""
    subprocess.run(
        ["ssh", "-F", str(config), "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "h", "true"],
        capture_output=True,
        check=False,
        timeout=scaled(30),
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_sandboxed_command_cannot_create_credential_configs_that_run_code(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch, run_sandboxed: RunSandbox
) -> None:
    if shutil.which("ssh") is None:
        pytest.skip("no ssh client to show the planted ProxyCommand running")
    home = host_dir / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    marker = host_dir / "pwned-by-ssh-config"
    plants = {
        ".ssh/config": f"Host *\n  ProxyCommand sh -c 'touch {marker}'\n",
        ".ssh/authorized_keys": "ssh-ed25519 AAAAC3Nza attacker\n",
        ".aws/config": f"[default]\ncredential_process = sh -c 'touch {marker}'\n",
        ".kube/config": "users:\n- name: u\n  user:\n    exec:\n      command: /tmp/evil\n",
        ".docker/config.json": '{"credsStore": "evil"}\n',
        ".bashrc": "touch /tmp/evil\n",  # control: on the host-executed list, removed
    }
    command = "; ".join(
        f"mkdir -p ~/{Path(p).parent} && printf %s {shlex.quote(body)} > ~/{p}"
        for p, body in plants.items()
    )
    await run_sandboxed(BubblewrapSandbox(root=home), command, home)
    assert not (home / ".bashrc").exists()
    if (home / ".ssh" / "config").exists():
        _ssh_runs_proxy_command(home / ".ssh" / "config")
    assert not marker.exists(), "the host's next ssh ran the planted ProxyCommand"
    survivors = [p for p in plants if (home / p).exists()]
    assert survivors == []


# --- F11: shell writes to host-executed paths that are asked about instead of denied ------------

SPELLINGS = [
    "cat payload 1<>{site}/evil.pth",  # read-write redirection: creates and writes the file
    "cp -t {site} evil.pth",  # target directory first
    "cp --target-directory={site} evil.pth",
    "cp evil.pth {site}",  # into an existing directory
    "mv -t {site} evil.pth",
    "install -t {site} evil.pth",
    "ln -sf ../../../../evil.pth {site}/",  # a link named after its target, into the directory
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_shell_spelling_of_a_pth_write_is_denied(host_dir: Path, spelling: str) -> None:
    root = host_dir / "ws"
    root.mkdir()
    site = make_venv(root)
    relative = site.relative_to(root)
    (root / "payload").write_text("import os\n")
    (root / "evil.pth").write_text("import os\n")
    (site / "evil.pth").write_text("/nonexistent\n")  # an existing .pth (a glob can match it)
    command = spelling.format(site=relative)
    control = analyze_command(
        f"cat payload > {relative}/evil.pth", cwd=str(root), roots=[str(root)], home=None
    )
    assert control.decision == "deny"  # docs: a shell write to a host-executed path is denied
    # bash really writes the .pth with this spelling (run on a scratch copy)
    scratch = host_dir / "scratch"
    shutil.copytree(root, scratch, symlinks=True)
    subprocess.run(["bash", "-c", command], cwd=scratch, check=True, timeout=scaled(30))
    assert "import os" in (scratch / relative / "evil.pth").read_text()
    verdict = analyze_command(command, cwd=str(root), roots=[str(root)], home=None)
    assert verdict.decision == "deny", verdict


# --- F12: a credential tracked by a dotfiles repository leaves through git's object store -------


def _dotfiles_repo(home: Path) -> None:
    env = host_git_env(home)
    for args in (["init", "-q"], ["add", ".npmrc", ".bashrc"], ["commit", "-qm", "dotfiles"]):
        subprocess.run(["git", "-C", str(home), *args], check=True, timeout=scaled(30), env=env)


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_tracked_credential_is_not_printed_by_allowlisted_git(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = host_dir / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / ".npmrc").write_text("//registry.npmjs.org/:_authToken=NPM-SECRET-77\n")
    (home / ".bashrc").write_text("# rc\n")
    _dotfiles_repo(home)  # the home is a dotfiles repository, as with `git init ~`
    policy = CodingApprovalPolicy(roots=[home])
    shell = ShellOptions(operations=create_sandbox_bash_operations(BubblewrapSandbox(root=home)))
    tools = create_coding_tools(home, execution_policy=policy, shell=shell)
    run = next(tool for tool in tools if tool.name == "shell")
    control = await run_tool(run, {"command": "cat .npmrc"})
    assert control.error is not None and "credential" in control.error.message
    for command in ("git show HEAD:.npmrc", "git log -p", "git show"):
        result = await run_tool(run, {"command": command})
        assert "NPM-SECRET" not in str(result.content), command


# --- F13: a protected path that is a symlink is written through without approval ----------------

SYMLINKED: dict[str, tuple[str, str]] = {
    ".git/hooks/pre-commit": (".git/hooks/pre-commit", "../../scripts/pre-commit.sh"),
    ".vscode/tasks.json": (".vscode", "shared/vscode"),
    ".pre-commit-config.yaml": (".pre-commit-config.yaml", "cfg/pre-commit.yaml"),
    ".husky/pre-commit": (".husky", "hooks"),
    ".envrc": (".envrc", "tools/envrc.sh"),
}
"""Path the tool is asked to write -> (the symlink in the workspace, its target)."""


def _git_init(directory: Path) -> None:
    subprocess.run(["git", "init", "-q", str(directory)], check=True, timeout=scaled(30))


@pytest.mark.parametrize("path", sorted(SYMLINKED))
async def test_the_write_and_edit_tools_do_not_write_through_a_symlinked_protected_path(
    host_dir: Path, path: str
) -> None:
    root = host_dir / "ws"
    plain = host_dir / "plain"
    for base in (root, plain):
        base.mkdir()
        _git_init(base)
    for directory in ("scripts", "shared/vscode", "cfg", "hooks", "tools"):
        (root / directory).mkdir(parents=True)
    link, target = SYMLINKED[path]
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(target)
    (root / path).write_text("original\n")
    control = await run_tool(policy_tools(plain)["write"], {"path": path, "content": "x\n"})
    assert control.error is not None  # the same path, not a symlink, is refused
    tools = policy_tools(root)
    written = await run_tool(tools["write"], {"path": path, "content": "PWNED\n"})
    edit = {"path": path, "edits": [{"old_text": "original", "new_text": "PWNED"}]}
    edited = await run_tool(tools["edit"], edit)
    assert written.error is not None and edited.error is not None
    assert (root / path).read_text() == "original\n"


# --- F14: renaming a credential's parent directory unmasks it for every later command -----------


@pytest.mark.usefixtures("bwrap_ready")
async def test_a_renamed_credential_directory_stays_masked_in_the_next_command(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch, run_sandboxed: RunSandbox
) -> None:
    home = host_dir / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: GH-SECRET-1\n")
    (home / ".docker").mkdir()
    (home / ".docker" / "config.json").write_text('{"auths": {"r": {"auth": "DOCKER-SECRET-2"}}}\n')
    monkeypatch.setenv("HOME", str(home))
    sandbox = BubblewrapSandbox(root=home)  # the home is the workspace root
    _, masked = await run_sandboxed(sandbox, "cat .config/gh/hosts.yml .docker/config.json", home)
    assert "SECRET" not in masked  # control: both are masked where they are
    # The mount points move with their renamed parents inside the command; on the host the
    # files are just renamed, and the next command (or the read tool) sees them unmasked.
    await run_sandboxed(sandbox, "mv .config .cfg; mv .docker .dk", home)
    _, second = await run_sandboxed(sandbox, "cat .cfg/gh/hosts.yml .dk/config.json", home)
    assert "SECRET" not in second
    read = await run_tool(policy_tools(home)["read"], {"path": ".cfg/gh/hosts.yml"})
    assert "GH-SECRET" not in str(read.content)


# --- F15: the sandbox's own clean-up deletes a repository whose parent was renamed ---------------


@pytest.mark.usefixtures("bwrap_ready")
async def test_renaming_a_project_directory_does_not_delete_its_git_history(
    project_root: Path, run_sandboxed: RunSandbox
) -> None:
    root = project_root
    # an ordinary refactor an agent may run (or be tricked into): no plant, only a rename
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), "mv proj proj2", root)
    assert (root / "proj2" / "a.txt").exists()
    assert (root / "proj2" / ".git" / "HEAD").exists(), output  # today: removed with history


@pytest.fixture
def project_root(host_dir: Path) -> Path:
    """``host_dir/ws`` holding ``proj``, a git repository with one commit ("history")."""
    root = host_dir / "ws"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "a.txt").write_text("work\n")
    _commit_all(root / "proj")
    return root


def _commit_all(directory: Path) -> None:
    env = host_git_env(directory)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "history"]):
        subprocess.run(
            ["git", "-C", str(directory), *args], check=True, timeout=scaled(30), env=env
        )


# --- F16: a credential managed by a dotfiles symlink farm (GNU stow) is readable -----------------


@pytest.fixture
def stow_home(host_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~/.npmrc`` and ``~/.ssh`` are symlinks into ``~/dotfiles`` (stow's layout)."""
    home = host_dir / "home"
    (home / "dotfiles" / "npm").mkdir(parents=True)
    (home / "dotfiles" / "npm" / ".npmrc").write_text("_authToken=STOW-SECRET-1\n")
    (home / ".npmrc").symlink_to("dotfiles/npm/.npmrc")
    (home / "dotfiles" / "ssh").mkdir()
    (home / "dotfiles" / "ssh" / "id_ed25519").write_text("STOW-SECRET-2\n")
    (home / ".ssh").symlink_to("dotfiles/ssh")
    (home / ".pypirc").write_text("password = PLAIN-SECRET-3\n")  # a regular file: the control
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize(
    "path",
    [
        *(".npmrc", "~/.npmrc", "{home}/.npmrc", "dotfiles/npm/.npmrc"),
        *(".ssh/id_ed25519", "~/.ssh/id_ed25519", "dotfiles/ssh/id_ed25519"),
    ],
)
async def test_the_read_tool_refuses_a_symlinked_credential_by_any_name(
    stow_home: Path, path: str
) -> None:
    tools = policy_tools(stow_home)  # the home is the workspace root
    control = await run_tool(tools["read"], {"path": ".pypirc"})
    assert control.error is not None and "PLAIN-SECRET" not in str(control.content)
    result = await run_tool(tools["read"], {"path": path.replace("{home}", str(stow_home))})
    assert result.error is not None
    assert "STOW-SECRET" not in str(result.content)


def test_the_shell_policy_does_not_allow_reading_a_symlinked_credential(stow_home: Path) -> None:
    home = str(stow_home)
    control = analyze_command("cat .pypirc", cwd=home, roots=[home], home=home)
    assert control.decision == "deny"
    for command in ("cat dotfiles/npm/.npmrc", "cat dotfiles/ssh/id_ed25519"):
        verdict = analyze_command(command, cwd=home, roots=[home], home=home)
        assert verdict.decision == "deny", (command, verdict)
