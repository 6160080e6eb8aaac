"""Every operand of every allowlisted program is checked in every option spelling, flags that
follow symlinks are allowed only when every reachable link stays inside, and globs that can
match ``.``/``..`` in some shell are never allowed (real files, real symlinks, real dash)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_security import CodingApprovalPolicy
from prism.coding_security._analysis._commands import analyze_command
from prism.core import ExecutionAction, ExecutionDecision


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("x\n")
    (workspace / "src" / "pkg" / "mod.py").write_text("y\n")
    (workspace / "inside").symlink_to(workspace / "src")
    return str(workspace)


def decide(command: str, root: str) -> str:
    return analyze_command(command, cwd=root, roots=[root], home=None).decision


HIDDEN_START_PATHS = [
    "find -- /etc -name passwd",
    "find -O3 /root -name x",
    "find -O /etc -name x",
    "find -D tree /etc -name x",
    "find -H -P /etc",
    "find -P -- /etc",
    "find . /etc -name x",
    "find src -name x /etc",
    "find . -newer /etc/hostname",
    "find . -newermm /etc/hostname",
    "find . -samefile /etc/hostname",
    "find . -unknownprimary /etc",
    "ls -- /etc",
    "ls -la -- /",
    "ls -d -- ..",
    "cat -- /etc/hostname",
    "cat -n -- ../x",
    "head -n1 -- /etc/hostname",
    "head -n 1 -- /etc/hostname",
    "tail -c5 -- /etc/hostname",
    "wc -l -- /etc/hostname",
    "stat -L -- /etc/hostname",
    "stat -c %s -- /etc/hostname",
    "grep -e x -- /etc/hostname",
    "grep -- x /etc/hostname",
    "grep -rn -- x /etc",
    "grep -fsrc/app.py src /etc",
    "rg -e x -- /etc",
    "rg x -- /etc",
    "rg -n x /etc",
    "rg --files /etc",
    "git log -- /etc",
    "git -C /etc status",
    "git -C . -C /etc status",
    "git -C src log -- ../../outside",
    "git --no-pager -C /etc log",
]


@pytest.mark.parametrize("command", HIDDEN_START_PATHS)
def test_every_operand_spelling_is_checked(command: str, root: str) -> None:
    assert decide(command, root) == "needs-approval", command


CONTAINED_SPELLINGS = [
    "find -- . -name '*.py'",
    "find -O3 src -name x",
    "find -H . -maxdepth 2 -type f",
    "find . -newer src/app.py",
    "ls -- src",
    "cat -- src/app.py",
    "head -n1 -- src/app.py",
    "grep -e x -- src/app.py",
    "rg x -- src",
    "git -C . branch --show-current",
    "git -C src status",
]


@pytest.mark.parametrize("command", CONTAINED_SPELLINGS)
def test_contained_spellings_stay_allowed(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


FOLLOWERS = [
    "ls -L",
    "ls -L src",
    "ls -RL",
    "ls -lL .",
    "ls -R -L src",
    "ls --dereference",
    "grep -R foo .",
    "grep -R foo",
    "grep --dereference-recursive foo src",
    "rg -L foo",
    "rg --follow foo src",
    "find -L . -name x",
    "find . -follow -name x",
]


@pytest.mark.parametrize("command", FOLLOWERS)
def test_following_flags_are_allowed_when_every_link_stays_inside(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


@pytest.mark.parametrize("command", FOLLOWERS)
def test_following_flags_need_approval_when_a_link_leaves(command: str, root: str) -> None:
    (Path(root) / "src" / "etc").symlink_to("/etc")
    (Path(root) / "etc").symlink_to("/etc")
    assert decide(command, root) == "needs-approval", command


@pytest.mark.parametrize("command", ["ls -RL", "grep -R foo .", "rg -L foo", "find -L ."])
def test_deep_followers_find_links_at_any_depth(command: str, root: str) -> None:
    (Path(root) / "src" / "pkg" / "etc").symlink_to("/etc")
    assert decide(command, root) == "needs-approval", command
    assert decide(command.replace("-RL", "-L"), root) == (
        "allow" if command == "ls -RL" else "needs-approval"
    )


def test_a_link_to_a_directory_is_walked_for_further_links(root: str) -> None:
    (Path(root) / "deep").mkdir()
    (Path(root) / "deep" / "out").symlink_to("/")
    (Path(root) / "src" / "hop").symlink_to(Path(root) / "deep")
    assert decide("grep -R x src", root) == "needs-approval"
    assert decide("grep -r x src", root) == "allow"  # -r follows command-line links only


_PROGRAMS = {
    "cat": ["-n", "-A", "-s"],
    "head": ["-n1", "-c 3", "-q"],
    "tail": ["-n1", "-c 3", "-v"],
    "wc": ["-l", "-c", "-lw"],
    "ls": ["-la", "-R", "-1", "-d"],
    "stat": ["-L", "-t", "-c %s"],
    "grep": ["-rn x", "-e x", "-i x", "-e x -r"],
    "rg": ["-n x", "-e x", "--files", "-i x"],
    "find": ["-H", "-O2", "-P", "-D tree"],
}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    program=st.sampled_from(sorted(_PROGRAMS)),
    flags=st.lists(st.integers(0, 2), max_size=3),
    dashdash=st.booleans(),
    outside=st.sampled_from(["/etc/hostname", "/etc", "..", "../..", "/", "~/x"]),
    inside_first=st.booleans(),
)
def test_no_spelling_reaches_outside(
    program: str,
    flags: list[int],
    dashdash: bool,
    outside: str,
    inside_first: bool,
    root: str,
) -> None:
    options = [_PROGRAMS[program][i] for i in flags]
    if program in ("grep", "rg"):
        options.append("-e pattern")  # so the outside word is a file, never the pattern
    if program == "find":
        words = [program, *options, *(["--"] if dashdash else [])]
        words += ["src", outside] if inside_first else [outside]
    else:
        operands = ["src/app.py", outside] if inside_first else [outside]
        words = [program, *options, *(["--"] if dashdash else []), *operands]
    command = " ".join(words)
    assert decide(command, root) != "allow", command


DOT_GLOBS = [
    "cat .?/.?/etc/passwd",
    "cat src/.?/.?/.?/etc/hostname",
    "ls .*",
    "ls .?",
    "cat .[.]/x",
    "ls [.][.]",
    "cat ./.?/x",
    "ls src/.*/",
    "grep -r x .?",
]


@pytest.mark.parametrize("command", DOT_GLOBS)
def test_globs_never_expand_to_dot_entries(command: str, root: str) -> None:
    """The policy expands globs with bash 5.2's rules (``.`` and ``..`` never match) and the
    shell runs the literal rendering, so no shell can make such a glob climb out."""
    verdict = analyze_command(command, cwd=root, roots=[root], home=None)
    if verdict.decision == "allow":
        assert verdict.rendered is not None
        assert ".." not in verdict.rendered.replace(".[.]", "").replace("[.][.]", ""), command
        assert "?" not in verdict.rendered or "'" in verdict.rendered, command


@pytest.mark.parametrize("command", ["cat src/*.py", "ls src/*", "cat s?c/app.py", "ls *"])
def test_ordinary_globs_stay_allowed(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash is not installed")
def test_dash_really_expands_dot_globs_to_the_parent(root: str) -> None:
    """The premise: in dash `.?` matches `..`, so `cat .?/.?/…` climbs out of the root."""
    result = subprocess.run(
        ["dash", "-c", "echo .?/.?"], cwd=Path(root) / "src", capture_output=True, text=True
    )
    assert "../.." in result.stdout.split()
    policy = CodingApprovalPolicy(roots=[root])
    action = ExecutionAction(
        kind="shell",
        operation="execute",
        command="cat .?/.?/.?/etc/passwd",
        cwd=f"{root}/src",
        paths=(root,),
    )
    decision = policy.check(action)
    if not isinstance(decision, ExecutionDecision):
        decision.close()  # type: ignore[attr-defined]
        return
    if decision.allowed:  # what runs is the literal rendering: dash has nothing to expand
        command = str((decision.modified or {}).get("command", action.command))
        ran = subprocess.run(
            ["dash", "-c", command], cwd=Path(root) / "src", capture_output=True, text=True
        )
        assert "root:" not in ran.stdout


@pytest.mark.parametrize(
    "command",
    [
        "rg -z x",
        "rg --search-zip x",
        "rg -nz x",
        "rg --pre-glob '*.gz' x",
        "rg --pre=cat x",
        "grep -e x --devices=read -r /dev",
        "base64 -oout.b64 src/app.py",
        "uniq src/app.py out.txt",
        "sed -n 1p src/app.py -i",
        "bash -lc ls extra",
        "bash -i -c ls",
        "cd -",
        "cd /etc",
    ],
)
def test_program_specific_vectors_need_approval(command: str, root: str) -> None:
    assert decide(command, root) == "needs-approval", command


def test_hardened_prefix_clears_ripgrep_config_and_external_diff(root: str) -> None:
    """Host variables that name a config file or program are dropped before git/rg run."""
    policy = CodingApprovalPolicy(roots=[root])
    action = ExecutionAction(
        kind="shell", operation="execute", command="rg -n x src", cwd=root, paths=(root,)
    )
    decision = policy.check(action)
    assert isinstance(decision, ExecutionDecision) and decision.allowed
    final = (decision.modified or {})["command"]
    assert isinstance(final, str) and final.endswith("rg -n x src")
    probe = (
        final[: -len("rg -n x src")] + "echo ${RIPGREP_CONFIG_PATH-none} ${GIT_EXTERNAL_DIFF-none}"
    )
    env = {"PATH": "/usr/bin:/bin", "RIPGREP_CONFIG_PATH": f"{root}/rc", "GIT_EXTERNAL_DIFF": "x"}
    result = subprocess.run(["sh", "-c", probe], env=env, capture_output=True, text=True)
    assert result.stdout.split() == ["none", "none"]
