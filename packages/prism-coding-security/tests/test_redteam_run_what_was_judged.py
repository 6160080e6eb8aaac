"""Red-team variants of "the policy judges its words, bash runs its own" that the policy holds
today; kept as regression tests. Each live attack runs through the real shell tool and the real
policy on real directories, next to a control (no policy) proving it works in plain bash."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from prism.coding_security import analyze_command

from ._redteam import ApprovedShell, Approver, control, run, ws

__all__ = ["ws"]  # the workspace fixture, used by name

pytestmark = pytest.mark.anyio


def _spill_to_sh(root: Path) -> None:
    """`data` whose every line runs when `sort --compress-program=sh` spills a chunk of it."""
    (root / "data").write_text("touch PWNED; exit\n" * 3000)


# Each row: files to create (name -> content), the attack, whether the control must create PWNED
# or print the outside secret. The policy must refuse (read-only mode) with no effect.
LIVE = [
    # option smuggling through GNU getopt_long abbreviations
    ({}, "sort --compress-prog=sh -S1 data data", "PWNED"),
    ({}, "sort --comp=sh -S1 data data", "PWNED"),
    ({"lst": "../secret\0"}, "sort --files0=lst", "OUTSIDE-SECRET"),
    ({"lst": "../secret\0"}, "wc --files0=lst", "../secret"),
    ({"zz": "touch PWNED\n"}, "sed --exp=1e zz", "PWNED"),
    ({"zz": "touch PWNED\n"}, "sed --e=1e zz", "PWNED"),
    # an option spelled with ANSI-C quoting or a glob still is an option
    ({}, "sort $'--compress-program=sh' -S1 data data", "PWNED"),
    # a file named like an option, reached by a glob, by xargs, by a for loop
    ({"--compress-program=sh": "", "-S1": ""}, "ls | xargs sort", "PWNED"),
    ({"--compress-program=sh": ""}, "for f in *; do sort -S1 data data $f; done", "PWNED"),
    # a program text (awk, sed) that a glob picks from the file names
    ({'BEGIN{system("touch PWNED")}': ""}, "awk B*", "PWNED"),
    ({"1e": "", "zz": "touch PWNED\n"}, "sed 1* zz", "PWNED"),
    # file names carrying shell syntax, expanded by a glob or inside bash -c
    ({"a$(touch PWNED)": ""}, "bash -c 'echo *'; eval echo *", None),
    # wrappers: GNU time writes with -o, in every spelling
    ({}, "\\time --ou=.bashrc cat data", ".bashrc"),
    ({}, "nice time -ao .bashrc cat data", ".bashrc"),
    # shells other than plain -c: interactive reads ~/.bashrc, -O/+B change expansion
    ({}, "bash -O extglob -c 'cat data'", None),
    # a failing cd with the outside read behind `||` (nonexistent directory)
    ({}, "cd nonexist || cat ../secret", "OUTSIDE-SECRET"),
    # arithmetic, process substitution, here-strings, indirect expansion
    ({}, "echo $((1+1)) $[1+1] $(touch PWNED)", "PWNED"),
    ({}, "cat <(touch PWNED)", "PWNED"),
    ({}, "cat <<< $(touch PWNED)", "PWNED"),
    ({}, "true '$(touch PWNED)'; echo {x,$}{_@P}", "PWNED"),
]


@pytest.mark.parametrize(("files", "command", "effect"), LIVE)
async def test_live_attacks_are_refused_in_read_only_mode(
    ws: Path, files: dict[str, str], command: str, effect: str | None
) -> None:
    _spill_to_sh(ws)
    for name, content in files.items():
        (ws / name).write_text(content)
    ran = await run(ws, command, read_only=True)
    assert ran.error == "execution_denied" and not ran.asked, ran
    assert not (ws / "PWNED").exists() and not (ws / ".bashrc").exists(), ran
    assert "OUTSIDE-SECRET" not in ran.output, ran
    if effect is None:
        return
    if effect == ".bashrc" and shutil.which("time") is None:
        return  # GNU time is not installed: nothing to prove
    shown = await control(ws, command)  # the same command without the policy really does it
    if effect in ("PWNED", ".bashrc"):
        assert (ws / effect).exists(), shown
    else:
        assert effect in shown.output, shown


# A glob result that looks like an option runs as a path (`./--compress-program=sh`).
NEUTRALIZED = [
    ({"--compress-program=sh": ""}, "sort -S1 data data --c[o]mpress-program=sh"),
    ({"--compress-program=sh": "", "-S1": ""}, "sort * data"),
]


@pytest.mark.parametrize(("files", "command"), NEUTRALIZED)
async def test_globbed_options_run_as_paths(ws: Path, files: dict[str, str], command: str) -> None:
    _spill_to_sh(ws)
    for name, content in files.items():
        (ws / name).write_text(content)
    await control(ws, command)
    assert (ws / "PWNED").exists()  # plain bash makes an option of the name
    (ws / "PWNED").unlink()
    ran = await run(ws, command, read_only=True)
    assert not (ws / "PWNED").exists(), ran


# Allowed commands whose words carry shell syntax: the rendering runs them as literal words.
RENDERED = [
    ({"a$(touch PWNED).txt": "", "b`touch PWNED`.txt": "", "c'q.txt": ""}, "ls *.txt"),
    ({"a$(touch PWNED).txt": "", "n\nl.txt": ""}, "bash -c 'ls *.txt'"),
    ({"a$(touch PWNED).txt": ""}, "sh -c 'ls *.txt'"),
    ({"x${IFS}y": ""}, "ls x*"),
    ({"{a,b}": ""}, "ls {*"),
]


@pytest.mark.parametrize(("files", "command"), RENDERED)
async def test_glob_results_with_shell_syntax_run_as_literal_words(
    ws: Path, files: dict[str, str], command: str
) -> None:
    for name, content in files.items():
        (ws / name).write_text(content)
    ran = await run(ws, command, read_only=True)
    assert ran.error is None, ran
    assert not (ws / "PWNED").exists(), ran
    for name in files:
        assert name in ran.output, ran


@pytest.mark.parametrize("shell_path", ["/bin/bash", "/bin/sh"])
async def test_rendered_globs_cannot_climb_out_under_either_shell(
    ws: Path, shell_path: str
) -> None:
    for command in ("cat .[[:punct:]]/secret", "cat .?/secret", "cat .[!a]/secret"):
        ran = await run(ws, command, shell_path=shell_path)
        assert "OUTSIDE-SECRET" not in ran.output, (command, ran)


def test_names_that_xargs_would_read_as_options_need_approval(ws: Path) -> None:
    (ws / "-o.bashrc").write_text("")
    (ws / "payload").write_text("x\n")
    for command in ("ls | xargs sort", "ls -d -- -o.bashrc payload | xargs sort"):
        verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
        assert verdict.decision != "allow", command


def test_ls_recursive_headers_cannot_hand_xargs_an_outside_link(ws: Path) -> None:
    (ws / "x" / "y").mkdir(parents=True)
    (ws / "x" / "y:").symlink_to(ws.parent / "secret")
    for command in ("ls -R | xargs cat", "ls -R x | xargs cat"):
        verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
        assert verdict.decision != "allow", command


def test_a_nul_in_an_ansi_c_word_is_not_a_path(ws: Path) -> None:
    for command in ("cat $'a\\0/../../secret'", "cat $'a\\x00'/x", "cat $'a\\u0000'"):
        verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
        assert verdict.decision != "allow", command


def test_cd_through_a_link_is_rendered_physically(ws: Path) -> None:
    (ws / "sub" / "d").mkdir(parents=True)
    (ws / "link").symlink_to(ws / "sub" / "d")
    verdict = analyze_command("cd -L link/.. && ls", cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.rendered == f"cd -P -- {ws} && ls"
    done = subprocess.run(
        ["bash", "-c", verdict.rendered + " && pwd -P"], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().endswith(str(ws))


async def test_a_cached_approval_of_a_top_level_script_is_asked_again_after_a_rewrite(
    ws: Path,
) -> None:
    (ws / "run.sh").write_text("echo harmless\n")
    host = Approver()
    shell = ApprovedShell(ws, host)
    assert "harmless" in (await shell.run("bash run.sh")).output
    (ws / "run.sh").write_text("touch PWNED\n")
    second = await shell.run("bash run.sh")
    assert len(host.asked) == 2, second
