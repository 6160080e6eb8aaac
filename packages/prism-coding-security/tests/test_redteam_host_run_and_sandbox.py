"""Red-team variants that the sandbox and the file tools hold (issue 26), kept as regressions.

Each attack runs for real (bwrap, the coding tools, real venvs and git repositories) and comes
with a control showing it is live where the protection is absent: the host really runs a
planted ``.pth``, the host kernel really opens the socket family, the secret really is on disk.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from prism.coding_security import (
    BubblewrapSandbox,
    CodingApprovalPolicy,
    analyze_command,
)
from prism.coding_tools import ExecResult, create_coding_tools
from prism.core import AbortController, ToolDefinition, ToolExecutionContext, ToolResult
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = pytest.mark.anyio


def _context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


def _tools(root: Path) -> dict[str, ToolDefinition]:
    policy = CodingApprovalPolicy(roots=[root])
    return {tool.name: tool for tool in create_coding_tools(root, execution_policy=policy)}


async def _run(tool: ToolDefinition, arguments: dict[str, object]) -> ToolResult:
    with anyio.fail_after(scaled(30)):
        return await tool.execute(arguments, _context())


def _make_venv(root: Path) -> Path:
    """A real virtual environment (no pip) in ``root/.venv``; returns its site-packages."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")],
        check=True,
        timeout=scaled(120),
    )
    found = list((root / ".venv" / "lib").glob("python3*/site-packages"))
    assert len(found) == 1
    return found[0]


def _host_python_runs(root: Path, marker: Path) -> bool:
    marker.unlink(missing_ok=True)
    subprocess.run(
        [str(root / ".venv" / "bin" / "python"), "-c", "pass"],
        check=False,
        timeout=scaled(60),
        env={"PATH": "/usr/bin:/bin"},
    )
    return marker.exists()


@pytest.fixture
def venv_root(host_dir: Path) -> tuple[Path, Path, Path]:
    """(workspace root with a real .venv, its site-packages, a marker the plant would touch)."""
    root = host_dir / "ws"
    root.mkdir()
    return root, _make_venv(root), host_dir / "pwned"


# --- plants the host Python runs later -----------------------------------------------------------


@pytest.mark.usefixtures("bwrap_ready")
@pytest.mark.parametrize("route", ["lib64", "staged-rename", "tar", "hard-link"])
async def test_a_new_pth_by_any_route_is_removed_before_the_host_starts_python(
    venv_root: tuple[Path, Path, Path], run_sandboxed: RunSandbox, route: str
) -> None:
    root, site, marker = venv_root
    version = site.parent.name
    (site / "ok.pth").write_text("/nonexistent\n")
    payload = f"import os; open({str(marker)!r}, 'w').close()\n"
    (root / "payload.pth").write_text(payload)
    # control: the same .pth planted by the host is run by the host's next Python start
    shutil.copy(root / "payload.pth", site / "control.pth")
    assert _host_python_runs(root, marker)
    (site / "control.pth").unlink()
    lib = f".venv/lib/{version}"
    command = {
        "lib64": f"cp payload.pth .venv/lib64/{version}/site-packages/evil.pth",
        "staged-rename": (
            f"cd {lib} && mkdir stage && cp ../../../payload.pth stage/evil.pth && "
            "mv site-packages old && mv stage site-packages"
        ),
        "tar": (
            f"mkdir -p t/{lib}/site-packages && cp payload.pth t/{lib}/site-packages/evil.pth"
            " && tar -C t -cf x.tar .venv && tar -xf x.tar"
        ),
        "hard-link": f"ln payload.pth {lib}/site-packages/evil.pth",
    }[route]
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert not (site / "evil.pth").exists(), output
    assert not _host_python_runs(root, marker)


async def test_the_write_tool_needs_approval_for_a_pth_in_any_spelling(
    venv_root: tuple[Path, Path, Path],
) -> None:
    root, site, marker = venv_root
    version = site.parent.name
    tools = _tools(root)
    payload = f"import os; open({str(marker)!r}, 'w').close()\n"
    for relative in (
        f".venv/lib/{version}/site-packages/evil.pth",
        f".venv/lib64/{version}/site-packages/evil.pth",
        f".venv/lib/{version}/site-packages/EVIL.PTH",
        f".venv/lib/{version}/../{version}/site-packages/evil.pth",
        f".venv/lib/{version}/site-packages/sitecustomize.py",
        ".venv/bin/activate",
    ):
        result = await _run(tools["write"], {"path": relative, "content": payload})
        assert result.error is not None, relative
    assert not _host_python_runs(root, marker)


# --- git directories ---------------------------------------------------------------------------


@pytest.mark.usefixtures("bwrap_ready")
@pytest.mark.parametrize(
    "command",
    [
        "git init -q --separate-git-dir=gd sub && echo PWN > gd/hooks/post-checkout",
        "git init -q r && mkdir hk && echo PWN > hk/post-checkout"
        " && git -C r config core.hooksPath ../hk",
        "mkdir -p r2/objects r2/refs/heads r2/hooks && echo 'ref: refs/heads/main' > r2/HEAD"
        " && echo PWN > r2/hooks/post-receive",
    ],
    ids=["separate-git-dir", "hooks-path-of-a-new-repo", "hand-made-bare-repo"],
)
async def test_git_directories_created_during_a_command_are_removed(
    host_dir: Path, run_sandboxed: RunSandbox, command: str
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "removed" in output
    planted = [p for p in root.rglob("*") if p.is_file() and "PWN" in p.read_text()]
    assert planted == []


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, timeout=scaled(30))


@pytest.mark.usefixtures("bwrap_ready")
async def test_existing_hook_directories_and_symlinked_objects_stay_read_only(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    _git("init", "-q", str(root / "r"))
    _git("-C", str(root / "r"), "config", "core.hooksPath", ".hooks")
    (root / "r" / ".hooks").mkdir()
    bare = root / "b.git"
    _git("init", "-q", "--bare", str(bare))
    shutil.move(bare / "objects", root / "store")
    (bare / "objects").symlink_to("../store")
    command = (
        "echo PWN > r/.hooks/pre-commit; echo PWN > b.git/hooks/post-receive; "
        "git -C r config core.hooksPath ../elsewhere; echo PWN > r/.git/hooks/pre-commit"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "Read-only file system" in output
    planted = [p for p in root.rglob("*") if p.is_file() and "PWN" in p.read_text()]
    assert planted == []
    assert "elsewhere" not in (root / "r" / ".git" / "config").read_text()


# --- socket families, odd argument encodings and other ABIs --------------------------------------

_PROBE = """
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
def call(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return r if r >= 0 else -ctypes.get_errno()
for family, kind in ((1, 1), (40, 1), (17, 3), (38, 5), (2, 1)):
    for high in (0, 1, 0x7fffffff):
        out[f"socket {family} {high}"] = call(41, (high << 32) | family, kind, 0)
pair = (ctypes.c_int * 2)()
for kind in (2, 3, 2 | 0x80000, 2 | 0x800):  # DGRAM, RAW (= DGRAM for AF_UNIX), with flags
    for high in (0, 1):
        r = libc.syscall(ctypes.c_long(53), ctypes.c_long(1), ctypes.c_long((high << 32) | kind),
                         ctypes.c_long(0), pair)
        out[f"socketpair {kind} {high}"] = r if r >= 0 else -ctypes.get_errno()
out["x32 socket"] = call(0x40000000 | 41, 40, 1, 0)
for protocol in (4, 12, 16):  # netlink sock_diag (lists host sockets), netfilter, generic
    for high in (0, 1):
        out[f"netlink {protocol} {high}"] = call(41, 16, 3, (high << 32) | protocol)
print("PROBE " + json.dumps(out))
"""


def _output_of(argv: list[str]) -> str:
    """Run ``argv`` on the host (the control, outside any sandbox) and return its output."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=scaled(60), check=False)
    return done.stdout


def _probe_results(output: str) -> dict[str, int]:
    line = next(line for line in output.splitlines() if line.startswith("PROBE "))
    return {k: int(v) for k, v in json.loads(line.removeprefix("PROBE ")).items()}


@pytest.mark.usefixtures("bwrap_ready")
@pytest.mark.parametrize("network", [False, True])
async def test_socket_arguments_with_high_bits_or_raw_pairs_are_refused(
    host_dir: Path, run_sandboxed: RunSandbox, network: bool
) -> None:
    live = _probe_results(_output_of([sys.executable, "-c", _PROBE]))
    assert live["socket 1 1"] >= 0 and live["socketpair 3 1"] >= 0  # the host kernel opens them
    assert live["netlink 4 0"] >= 0
    sandbox = BubblewrapSandbox(root=host_dir, network=network)
    _, output = await run_sandboxed(sandbox, f"python3 -c {shlex.quote(_PROBE)}", host_dir)
    inside = _probe_results(output)
    opened = {k: v for k, v in inside.items() if v >= 0 and not k.startswith("socket 2 ")}
    assert opened == {}
    assert inside["x32 socket"] < 0
    assert (inside["socket 2 0"] >= 0) is network


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_32_bit_system_call_gate_kills_the_process(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build the int 0x80 probe")
    source = host_dir / "gate.c"
    source.write_text(
        "#include <stdio.h>\nint main(void){long r; long a[3]={40,1,0};\n"
        '__asm__ volatile("int $0x80":"=a"(r):"a"(102),"b"(1),"c"(a):"memory");\n'
        'printf("GATE %ld\\n", r); return 0;}\n'
    )
    binary = host_dir / "gate"
    _output_of([compiler, "-o", str(binary), str(source)])
    assert "GATE" in _output_of([str(binary)])  # control: the host kernel serves the gate
    _, output = await run_sandboxed(
        BubblewrapSandbox(root=host_dir), f"{binary}; echo rc=$?", host_dir
    )
    assert "GATE" not in output
    assert "rc=159" in output  # 128 + SIGSYS


# --- credentials ---------------------------------------------------------------------------------


@pytest.fixture
def npm_home(host_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = host_dir / "home"
    home.mkdir()
    (home / ".npmrc").write_text("//registry.npmjs.org/:_authToken=NPM-SECRET-7q\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("SSH-SECRET-7q\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.usefixtures("bwrap_ready")
async def test_credentials_stay_masked_through_indirect_readers(
    npm_home: Path, host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    (root / "link").symlink_to(npm_home / ".npmrc")
    (root / "keys").symlink_to(npm_home / ".ssh")
    home = shlex.quote(str(npm_home))
    command = "; ".join(
        [
            "cat link keys/id_ed25519",
            f"cat /proc/self/root{home}/.npmrc",
            f"cp {home}/.npmrc copy; cat copy",
            f"tar -C {home} -cf - .npmrc .ssh | tar -xOf -",
            f"git diff --no-index /dev/null {home}/.npmrc",
            f"base64 {home}/.npmrc; rev {home}/.npmrc",
            f"cd {home}/.ssh && cat *",
        ]
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert "NPM-SECRET" not in output and "SSH-SECRET" not in output
    assert "TlBNLVNFQ1JFVC" not in output  # base64 of the prefix
    assert "q7-TERCES" not in output


async def test_the_read_tool_refuses_credentials_by_every_path(npm_home: Path) -> None:
    root = npm_home  # the home is the workspace root
    (root / "proj").mkdir()
    (root / "proj" / "link").symlink_to(root / ".npmrc")
    tools = _tools(root)
    for path in (
        "~/.npmrc",
        str(root / ".npmrc"),
        "proj/link",
        "proj/../.npmrc",
        f"/proc/self/root{root}/.npmrc",
        f"{root}//.ssh/./id_ed25519",
    ):
        result = await _run(tools["read"], {"path": path})
        assert result.error is not None, path
        assert "SECRET" not in json.dumps([str(c) for c in result.content]), path


async def test_the_write_tool_refuses_to_create_credential_configs_in_a_home_root(
    host_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = host_dir / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    tools = _tools(home)
    control = await _run(tools["write"], {"path": "notes.txt", "content": "x\n"})
    assert control.error is None  # plain files in the home root are writable
    for relative in (".ssh/config", ".aws/config", ".kube/config", ".docker/config.json"):
        result = await _run(
            tools["write"], {"path": f"~/{relative}", "content": "ProxyCommand x\n"}
        )
        assert result.error is not None, relative
        assert not (home / relative).exists()


DENIED_SPELLINGS = [
    "echo x > .ENVRC",
    "echo x > ./sub/../sub/.envrc",
    "echo x > $'\\x2eenvrc'",
    "echo x > .env''rc",
    "echo x > .env\\rc",
    "echo x>sub/.envrc",
    ">sub/.envrc echo x",
    "cat a &>sub/.envrc",
    "cat a 3>sub/.envrc",
    "{ cat a; } > sub/.envrc",
    "(cat a) > sub/.envrc",
    "cat a | tee -a .husky/pre-commit",
    "sort -o sub/.envrc a",
    "git log -1 --output sub/.envrc",
    "ln -s a sub/.envrc",
    "install a sub/.envrc",
    "cd sub && echo x > .envrc",
    "echo x > {site}/*.pth",
    "cat a >> {glob}/ok.pth",
    "cp a {site}/x.pth",
    "echo x > {site}/sitecustomize.py",
    "cat a > .venv/bin/activate",
]


async def test_shell_spellings_of_host_executed_writes_are_denied(
    venv_root: tuple[Path, Path, Path],
) -> None:
    root, site, _ = venv_root
    (root / "a").write_text("import os\n")
    (root / "sub").mkdir()
    (site / "ok.pth").write_text("/nonexistent\n")
    relative = str(site.relative_to(root))
    glob = relative.replace("packages", "packag?s")
    for spelling in DENIED_SPELLINGS:
        command = spelling.replace("{site}", relative).replace("{glob}", glob)
        verdict = analyze_command(command, cwd=str(root), roots=[str(root)], home=None)
        assert verdict.decision == "deny", (command, verdict)


@pytest.mark.usefixtures("bwrap_ready")
async def test_the_targets_of_symlinked_host_executed_entries_are_read_only_in_the_sandbox(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    for directory in ("shared/vscode", "cfg", "hk"):
        (root / directory).mkdir(parents=True)
    (root / "shared" / "vscode" / "tasks.json").write_text("orig\n")
    (root / ".vscode").symlink_to("shared/vscode")
    (root / "cfg" / "pc.yaml").write_text("orig\n")
    (root / ".pre-commit-config.yaml").symlink_to("cfg/pc.yaml")
    (root / "hk" / "pre-commit").write_text("orig\n")
    (root / ".husky").symlink_to("hk")
    (root / "plain.txt").write_text("orig\n")
    command = (
        "echo PWN >> shared/vscode/tasks.json; echo PWN > shared/vscode/launch.json; "
        "echo PWN >> cfg/pc.yaml; echo PWN >> hk/pre-commit; echo PWN > hk/pre-push; "
        "echo PWN >> plain.txt"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    assert (root / "plain.txt").read_text() == "orig\nPWN\n"  # control: the root is writable
    planted = [p for p in root.rglob("*") if p.is_file() and "PWN" in p.read_text()]
    assert planted == [root / "plain.txt"], output


@pytest.mark.usefixtures("bwrap_ready")
async def test_removing_new_protected_entries_never_follows_their_symlinks_out(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    root = host_dir / "ws"
    root.mkdir()
    victim = host_dir / "victim"  # host files outside the root, reachable by a symlink
    (victim / "sub").mkdir(parents=True)
    (victim / "precious.txt").write_text("keep\n")
    (victim / "sub" / "b.txt").write_text("keep\n")
    target = shlex.quote(str(victim))
    command = (
        f"ln -s {target} .vscode; mkdir .husky && ln -s {target} .husky/x; "
        f"mkdir -p g/refs && echo 'ref: refs/heads/main' > g/HEAD && ln -s {target} g/objects; "
        "mkdir -p g2/objects g2/refs && echo 'ref: refs/heads/main' > g2/HEAD"
        f" && ln -s {target} g2/hooks; mkdir -p d/.venv && ln -s {target} d/.venv/bin"
    )
    _, output = await run_sandboxed(BubblewrapSandbox(root=root), command, root)
    for removed in (".vscode", ".husky", "g", "g2", "d/.venv/bin"):
        assert f"removed {root / removed}:" in output, removed  # control: the removal ran
    assert sorted(p.name for p in victim.rglob("*")) == ["b.txt", "precious.txt", "sub"]
