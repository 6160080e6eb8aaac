"""Red-team round 2 against "run what was judged": each test runs a real attack through the real
shell tool and the real policy on real directories and asserts the safe behaviour. A control
(same command, no policy) proves the attack is live in plain bash. The rendering-fidelity
findings that are still open live in ``test_rendering_fidelity_open.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from prism.coding_security import CommandRule, analyze_command
from prism.core.testing import scaled

from ._redteam import ApprovedShell, Approver, control, run, ws

pytestmark = pytest.mark.anyio

__all__ = ["ws"]  # the workspace fixture, used by name


def _spill_to_sh(root: Path, name: str) -> None:
    """A data file whose every line runs when `sort --compress-program=sh` spills a chunk."""
    (root / name).write_text("touch PWNED; exit\n" * 3000)


# --- F1: xargs -d splits listed names into options -----------------------------------------
# The policy walks the names `ls` lists and refuses any that *starts* with `-`; with `-d Q`
# xargs splits at every `Q` instead of at new lines, so a name like `zQ--files0-from=lstQ` (no
# leading dash, no blank, no quote) becomes the item `--files0-from=lst`.


async def test_xargs_delimiter_makes_sort_read_a_list_of_outside_files(ws: Path) -> None:
    (ws / "lst").write_bytes(b"../secret\0")
    (ws / "zQ--files0-from=lstQ").write_text("")
    command = "ls | xargs -d Q -n1 sort"
    assert "OUTSIDE-SECRET" in (await control(ws, command)).output
    for read_only in (False, True):
        ran = await run(ws, command, read_only=read_only)
        assert "OUTSIDE-SECRET" not in ran.output, ran
        assert ran.error == "execution_denied", ran


async def test_xargs_delimiter_makes_sort_run_a_compress_program(ws: Path) -> None:
    _spill_to_sh(ws, "data")
    (ws / "dataQ--compress-program=shQ-S1QdataQ").write_text("")
    command = "ls -r | xargs -d Q -n4 sort"
    await control(ws, command)
    assert (ws / "PWNED").exists()
    os.unlink(ws / "PWNED")
    ran = await run(ws, command, read_only=True)
    assert not (ws / "PWNED").exists(), ran
    assert ran.error == "execution_denied", ran


# --- F2: the judge assumes every `cd` succeeds ----------------------------------------------
# `cd locked; cat ../secret` is judged with `cat` running in `locked`, so `../secret` is the
# workspace's own `secret`. When `cd` fails (a directory without search permission: in the
# sandbox, where no capability overrides permissions, or for any non-root user) bash stays in
# the root and `cat ../secret` reads the file next to the workspace. `||` makes it explicit.
# The fix: `cd` after `||` is not followed (approval), and the rendering of every followed
# `cd` is `{ cd -P -- DIR || exit 1 ; }`, so a `cd` that fails stops the command.


@pytest.fixture
def locked_space(bwrap_ready: None, host_dir: Path) -> Iterator[Path]:
    root = host_dir / "ws"
    (root / "locked").mkdir(parents=True)
    (root / "secret").write_text("inside\n")
    (host_dir / "secret").write_text("OUTSIDE-SECRET\n")
    os.chmod(root / "locked", 0)
    yield root
    os.chmod(root / "locked", 0o755)


@pytest.mark.parametrize("command", ["cd locked; cat ../secret", "cd locked || cat ../secret"])
async def test_a_failing_cd_leaves_later_operands_judged_from_the_wrong_directory(
    locked_space: Path, command: str
) -> None:
    assert "OUTSIDE-SECRET" in (await control(locked_space, command, sandboxed=True)).output
    ran = await run(locked_space, command, read_only=True, sandboxed=True)
    assert "OUTSIDE-SECRET" not in ran.output, ran
    stopped = "Permission denied" in ran.output and "exited with code 1" in ran.output
    assert ran.error == "execution_denied" or stopped, ran


# --- F3: the policy lists directories outside the roots while expanding a glob -----------------
# `ls ../private` is refused (it reads outside), but `echo ../private/*` is allowed: the policy
# itself expands the glob on the host, outside any sandbox, and the rendering carries the names.
# So a directory the sandbox masks (`deny_read`, like `~/.ssh`) is listed anyway.


@pytest.fixture
def private_space(bwrap_ready: None, host_dir: Path) -> Path:
    root = host_dir / "ws"
    root.mkdir()
    (host_dir / "private").mkdir()
    (host_dir / "private" / "id_ed25519_work").write_text("KEY")
    return root


async def test_a_glob_lists_an_outside_directory_in_read_only_mode(private_space: Path) -> None:
    assert "id_ed25519_work" in (await control(private_space, "echo ../private/*")).output
    refused = await run(private_space, "ls ../private", read_only=True)
    assert refused.error == "execution_denied", refused
    ran = await run(private_space, "echo ../private/*", read_only=True)
    assert "id_ed25519_work" not in ran.output, ran


async def test_a_glob_lists_a_directory_the_sandbox_masks(private_space: Path) -> None:
    masked = [str(private_space.parent / "private")]
    command = "echo ../private/*"
    shown = await control(private_space, command, sandboxed=True, deny_read=masked)
    assert "id_ed25519_work" not in shown.output, shown  # the sandbox alone hides it
    ran = await run(private_space, command, read_only=True, sandboxed=True, deny_read=masked)
    assert "id_ed25519_work" not in ran.output, ran


@pytest.mark.parametrize(
    "command",
    [
        "echo /root/.[a-z]*",
        "echo up/*",
        "echo /**",
        "echo ../w*/x",
        "echo ../private/nothing*",
        "ls | xargs --delimiter=Q -n1 sort",
        "ls | xargs -dQ sort",
    ],
)
def test_globs_into_outside_directories_and_xargs_delimiters_need_approval(
    ws: Path, command: str
) -> None:
    (ws / "up").symlink_to("..")
    verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.decision != "allow", verdict.rendered


def test_globs_inside_the_roots_still_expand(ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "x.txt").write_text("")
    verdict = analyze_command("cat s*/*.txt", cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.decision == "allow" and verdict.rendered == "cat sub/x.txt", verdict


# --- F4: glob matching is exponential in the policy -----------------------------------------
# docs/security.md promises every command is decided in bounded time (5 s backstop). The
# policy's glob matcher backtracks: `echo *a*a*a*a*a*a*a*a*a*a*a*a*b` (38 characters) against one
# 40-character file name runs for minutes inside `check()`, which is synchronous, so the event
# loop (every other session) stalls. bash answers the same glob in milliseconds.

_SLOW_GLOB = "echo " + "*a" * 12 + "*b"


def test_a_backtracking_glob_is_decided_in_bounded_time(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / ("a" * 40)).write_text("")
    started = time.monotonic()
    subprocess.run(["bash", "-c", _SLOW_GLOB], cwd=root, check=True, timeout=scaled(5))
    assert time.monotonic() - started < scaled(5)  # the control: bash is fast
    program = (
        "import sys\n"
        "from prism.coding_security import CommandRule, analyze_command\n"
        "print(analyze_command(sys.argv[1], cwd=sys.argv[2], roots=[sys.argv[2]], home=None))\n"
    )
    try:
        subprocess.run(
            [sys.executable, "-c", program, _SLOW_GLOB, str(root)],
            check=True,
            capture_output=True,
            timeout=scaled(10),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`{_SLOW_GLOB}` was not decided within {scaled(10)} s")


# --- F5: the content-keyed approval cache misses scripts named through cd, -c, -C, -m --------
# docs/security.md: "Approving `bash run.sh` approves that `run.sh`; after the script is
# rewritten the same command asks again". The digest resolves words against the action's cwd
# and only at the top level, so the script is not digested (and the approval is cached) when it
# is reached through a `cd`, inside `bash -c`, through `make -C DIR` or `python3 -m MODULE`.

CACHE_MISSES = [
    ("cd sub && bash run.sh", "sub/run.sh", "touch ../PWNED\n"),
    ("bash -c 'bash run.sh'", "run.sh", "touch PWNED\n"),
    ("make -C sub", "sub/Makefile", "all:\n\ttouch ../PWNED\n"),
    ("python3 -m tool", "tool.py", "open('PWNED', 'w')\n"),
]


@pytest.mark.parametrize(("command", "script", "evil"), CACHE_MISSES)
async def test_a_cached_approval_does_not_cover_a_rewritten_script(
    ws: Path, command: str, script: str, evil: str
) -> None:
    (ws / "sub").mkdir()
    (ws / "run.sh").write_text("echo harmless\n")
    (ws / "sub" / "run.sh").write_text("echo harmless\n")
    (ws / "sub" / "Makefile").write_text("all:\n\t@echo harmless\n")
    (ws / "tool.py").write_text("print('harmless')\n")
    host = Approver()
    shell = ApprovedShell(ws, host)
    first = await shell.run(command)
    assert first.error is None and "harmless" in first.output, first
    (ws / script).write_text(evil)  # the model rewrites the approved script
    await shell.run(command)
    assert len(host.asked) == 2 or not (ws / "PWNED").exists(), host.asked


# --- F6: existence oracles outside the roots (low) ------------------------------------------
# The policy reads `--format X` as taking a value (git wants `--format=X`), so git treats X as
# a revision or path and its error says whether an outside path exists; `which` stats any path.


@pytest.mark.parametrize(
    "command", ["which -a ../secret", "git log --format ../secret", "git show --pretty ../secret"]
)
def test_outside_paths_are_not_probed_without_approval(ws: Path, command: str) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.decision != "allow", verdict.rendered


@pytest.mark.parametrize("command", ["which -a ls", "git log --format=%H", "git log --pretty"])
def test_probes_inside_the_roots_stay_allowed(ws: Path, command: str) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.decision == "allow", verdict


# --- F7: words the policy renders differently from bash (fidelity) ----------------------------
# Not an escape (the rendering runs what was judged), but the command that runs was not the one
# the model wrote: a quoted blank glued to a word was dropped, `$'\''` misparsed, `$$` next to
# `$"…"` vanished, an escaped brace still grouped. Each now renders faithfully or needs approval.

FIDELITY = [
    'printf "%s\\n" a" "',
    "printf '%s\\n' $'\\''x$'\\\\' \\'x",
    'printf "%s\\n" $"x"$$"~"',
    "printf '%s\\n' {a\\,b}\\{a,b}",
    'printf \'%s\\n\' "*"- $""%',
    'printf "%s\\n" x" "y a"  b"c',
]


@pytest.mark.parametrize("command", FIDELITY)
def test_the_rendering_prints_what_bash_prints(ws: Path, command: str) -> None:
    rules = [CommandRule(pattern="printf *", action="allow")]
    verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None, rules=rules)
    if verdict.decision != "allow":
        return
    assert verdict.rendered is not None

    def printed(text: str) -> str:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
        return subprocess.run(
            ["bash", "-c", text], cwd=ws, env=env, capture_output=True, text=True, check=True
        ).stdout

    assert printed(verdict.rendered) == printed(command), verdict.rendered


@pytest.mark.parametrize("command", ["cat {fd}<a", "echo $'a\\0b'"])
def test_what_cannot_be_rendered_faithfully_needs_approval(ws: Path, command: str) -> None:
    """`{fd}<a` allocates a descriptor (not an operand), bash cuts `$'…'` at a NUL."""
    (ws / "a").write_text("x\n")
    verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.decision != "allow", verdict.rendered


def test_the_time_keyword_stays_the_keyword(ws: Path) -> None:
    """Quoted, `'time'` would run /usr/bin/time: the keyword is rendered as written."""
    (ws / "a").write_text("x\n")
    verdict = analyze_command("time cat a", cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.rendered == "time cat a", verdict
