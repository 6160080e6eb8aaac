"""Attacks where bash ran other words than the policy judged; each runs through the real shell
tool with the real policy in real directories. The policy now renders what it judged and the
shell runs that rendering (docs/security.md, "Run what was judged")."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from prism.coding_security import CodingApprovalPolicy
from prism.coding_security._analysis._commands import analyze_command
from prism.coding_security._analysis._render import Rendering, Span, render
from prism.coding_tools import ShellOptions, create_shell_tool
from prism.core import AbortController, ToolExecutionContext, render_tool_result

from ._redteam import Ran, Refuser, ws

__all__ = ["ws"]  # the workspace fixture, used by name

pytestmark = pytest.mark.anyio


async def run(
    root: Path, command: str, *, read_only: bool = False, shell_path: str | None = None
) -> Ran:
    refuser = Refuser()
    policy = CodingApprovalPolicy(roots=[root], approve=refuser, read_only=read_only)
    tool = create_shell_tool(
        root, options=ShellOptions(shell_path=shell_path), execution_policy=policy
    )
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )
    result = await tool.execute({"command": command}, context)
    error = result.error.code if result.error is not None else None
    return Ran(error, render_tool_result(result), refuser.asked)


def _git_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)


async def test_brace_made_prompt_expansion_does_not_run(ws: Path) -> None:
    marker = ws / "X"
    ran = await run(ws, "true '$(touch X)'; echo {x,$}{_@P}")
    assert not marker.exists()
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(ws, "true '$(touch X)'; echo {x,$}{_@P}", read_only=True)
    assert not marker.exists()
    assert ran.error == "execution_denied" and not ran.asked, ran


async def test_brace_made_parameter_expansion_cannot_read_a_file(ws: Path) -> None:
    (ws / "inside").write_text("x")
    ran = await run(ws, "cat {x,$}PWD/../secret")
    assert "OUTSIDE-SECRET" not in ran.output
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(ws, "cat {x,$}HOME/.ssh/id_ed25519", read_only=True)
    assert ran.error == "execution_denied" and not ran.asked, ran


async def test_a_brace_made_tilde_is_judged_as_the_home(ws: Path) -> None:
    verdict = analyze_command("cat {x,~}/.bashrc", cwd=str(ws), roots=[str(ws)], home="/h")
    assert verdict.decision != "allow" or "~" not in (verdict.rendered or "")


async def test_a_file_named_like_an_option_stays_an_operand_for_find(ws: Path) -> None:
    (ws / "-delete").write_text("")
    (ws / "keep.txt").write_text("keep")
    ran = await run(ws, "find . [-]delete")
    assert (ws / "keep.txt").exists(), ran
    ran = await run(ws, "find . -name [-]exec")
    assert (ws / "keep.txt").exists(), ran


async def test_a_globbed_output_operand_cannot_overwrite_git_config(ws: Path) -> None:
    _git_repo(ws)
    config = (ws / ".git" / "config").read_text()
    (ws / ".aa").mkdir()
    (ws / ".aa" / "config").write_text("[core]\n\thooksPath = /tmp/evil\n")
    await run(ws, "uniq .[ag]*/config")
    assert (ws / ".git" / "config").read_text() == config


async def test_a_globbed_option_cannot_make_git_write_a_file(ws: Path) -> None:
    (ws / "a").write_text("a\n")
    (ws / "b").write_text("b\n")
    (ws / "--output=.envrc").write_text("")
    await run(ws, "git diff --no-index a b [-]-output=.envrc")
    assert not (ws / ".envrc").exists()


async def test_a_globbed_sed_option_cannot_execute_the_input(ws: Path) -> None:
    (ws / "--expression=1e").write_text("")
    (ws / "zz").write_text("touch pwned\n")
    await run(ws, "sed [-]-expression=1e *")
    assert not (ws / "pwned").exists()


def test_glob_results_starting_with_a_dash_are_rendered_as_paths(ws: Path) -> None:
    for name in ("--pre=bash", "--compress-program=sh", "a.txt"):
        (ws / name).write_text("TODO\n")
    for command in ("rg TODO *", "cat *"):  # `sort *` too, once sort is allowlisted
        verdict = analyze_command(command, cwd=str(ws), roots=[str(ws)], home=None)
        assert verdict.decision == "allow", verdict.reason
        rendered = verdict.rendered or ""
        assert "./--pre=bash" in rendered and "./--compress-program=sh" in rendered, rendered
        assert " --pre" not in rendered and " --compress" not in rendered, rendered


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")
async def test_a_file_named_pre_bash_cannot_make_ripgrep_run_code(ws: Path) -> None:
    (ws / "--pre=bash").write_text("")
    (ws / "a.txt").write_text("touch pwned\n")
    await run(ws, "rg TODO *")
    assert not (ws / "pwned").exists()


async def test_cd_is_judged_where_bash_lands_logically(ws: Path) -> None:
    (ws / "a" / "b").mkdir(parents=True)
    os.symlink(ws / "a" / "b", ws / "link")
    ran = await run(ws, "cd link/../.. && ls")
    assert "secret" not in ran.output.split()
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(ws, "cd link/.. && pwd")
    assert ran.error is None and str(ws) in ran.output, ran


async def test_cd_runs_as_the_physical_directory_it_was_judged_to_be(ws: Path) -> None:
    (ws / "a" / "b").mkdir(parents=True)
    os.symlink(ws / "a" / "b", ws / "link")
    verdict = analyze_command("cd link && ls", cwd=str(ws), roots=[str(ws)], home=None)
    assert verdict.rendered == f"cd -P -- {ws}/a/b && ls"


async def test_posix_class_globs_cannot_climb_out_under_dash(ws: Path) -> None:
    """dash matches `..` with `.[[:punct:]]`; the rendering leaves dash nothing to expand."""
    ran = await run(ws, "cat .[[:punct:]]/secret", shell_path="/bin/sh")
    assert "OUTSIDE-SECRET" not in ran.output, ran
    ran = await run(ws, "cat .?/secret", shell_path="/bin/sh")
    assert "OUTSIDE-SECRET" not in ran.output, ran


async def test_an_allowed_command_runs_its_rendering(ws: Path) -> None:
    (ws / "b.py").write_text("")
    (ws / "a.py").write_text("")
    ran = await run(ws, "echo *.py {1..3} ~+/x 'q' \"$PWD\"")
    assert ran.error is None, ran
    assert f"a.py b.py 1 2 3 {ws}/x q {ws}" in ran.output


async def test_a_conditional_cd_does_not_move_the_judged_directory(ws: Path) -> None:
    (ws / "sub").mkdir()
    ran = await run(ws, "true || cd sub ; cat ../secret")
    assert "OUTSIDE-SECRET" not in ran.output, ran
    ran = await run(ws, "false && cd sub ; cat ../secret")
    assert "OUTSIDE-SECRET" not in ran.output, ran


async def test_a_cd_inside_a_misread_pipeline_is_not_missed(ws: Path) -> None:
    """tree-sitter-bash reads `cd .. && true 2>&1 | cat x` as `(cd .. && true) | cat x`."""
    (ws / "sub").mkdir()
    ran = await run(ws, "cd sub; cd .. && true 2>&1 | cat ../secret")
    assert "OUTSIDE-SECRET" not in ran.output, ran


def test_a_span_of_unrolled_parts_renders_as_their_sequence(tmp_path: Path) -> None:
    """A construct judged as several parsed texts (a loop unrolled per value) is rendered as
    those texts' renderings in a group; one that cannot be rendered spoils the whole."""
    data = b'for f in a b; do wc -l "$f"; done'
    keys = ((-2, "wc -l 'a'"), (-3, "wc -l 'b'"))
    loop = Rendering(data, [Span(0, len(data), inner=keys)])
    bodies = {keys[0]: "wc -l a", keys[1]: "wc -l b"}
    rendered = render(loop, lambda index, text: False, bodies.get)
    assert rendered == "{ wc -l a ; wc -l b ; }"
    assert render(loop, lambda index, text: False, {keys[0]: "wc -l a"}.get) is None
    (tmp_path / "a").write_text("1\n")
    (tmp_path / "b").write_text("1\n2\n")
    for shell in ("bash", "sh"):
        ran = subprocess.run([shell, "-c", rendered], cwd=tmp_path, capture_output=True, text=True)
        assert ran.stdout.split() == ["1", "a", "2", "b"], (shell, ran)


def test_a_here_string_is_not_rendered_for_a_shell_that_lacks_it(ws: Path) -> None:
    """dash reads `cat <<< x` as a heredoc and the file `x`: never rendered, so never run
    unasked (also when metacharacters are looked through)."""
    for strict in (True, False):
        verdict = analyze_command(
            "cat <<< x", cwd=str(ws), roots=[str(ws)], home=None, deny_metacharacters=strict
        )
        assert verdict.decision == "needs-approval", verdict


async def test_a_cd_through_command_or_builtin_is_not_missed(ws: Path) -> None:
    (ws / "sub").mkdir()
    for wrapper in ("command", "builtin"):
        ran = await run(ws, f"cd sub; {wrapper} cd ..; cat ../secret")
        assert "OUTSIDE-SECRET" not in ran.output, (wrapper, ran)
