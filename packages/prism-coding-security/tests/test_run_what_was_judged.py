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

from ._redteam import Ran, Refuser

pytestmark = pytest.mark.anyio


@pytest.fixture
def space(tmp_path: Path) -> Path:
    """``tmp/ws`` is the workspace root; ``tmp/secret`` lies outside it."""
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret").write_text("OUTSIDE-SECRET\n")
    return root.resolve()


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


async def test_brace_made_prompt_expansion_does_not_run(space: Path) -> None:
    marker = space / "X"
    ran = await run(space, "true '$(touch X)'; echo {x,$}{_@P}")
    assert not marker.exists()
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(space, "true '$(touch X)'; echo {x,$}{_@P}", read_only=True)
    assert not marker.exists()
    assert ran.error == "execution_denied" and not ran.asked, ran


async def test_brace_made_parameter_expansion_cannot_read_a_file(space: Path) -> None:
    (space / "inside").write_text("x")
    ran = await run(space, "cat {x,$}PWD/../secret")
    assert "OUTSIDE-SECRET" not in ran.output
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(space, "cat {x,$}HOME/.ssh/id_ed25519", read_only=True)
    assert ran.error == "execution_denied" and not ran.asked, ran


async def test_a_brace_made_tilde_is_judged_as_the_home(space: Path) -> None:
    verdict = analyze_command("cat {x,~}/.bashrc", cwd=str(space), roots=[str(space)], home="/h")
    assert verdict.decision != "allow" or "~" not in (verdict.rendered or "")


async def test_a_file_named_like_an_option_stays_an_operand_for_find(space: Path) -> None:
    (space / "-delete").write_text("")
    (space / "keep.txt").write_text("keep")
    ran = await run(space, "find . [-]delete")
    assert (space / "keep.txt").exists(), ran
    ran = await run(space, "find . -name [-]exec")
    assert (space / "keep.txt").exists(), ran


async def test_a_globbed_output_operand_cannot_overwrite_git_config(space: Path) -> None:
    _git_repo(space)
    config = (space / ".git" / "config").read_text()
    (space / ".aa").mkdir()
    (space / ".aa" / "config").write_text("[core]\n\thooksPath = /tmp/evil\n")
    await run(space, "uniq .[ag]*/config")
    assert (space / ".git" / "config").read_text() == config


async def test_a_globbed_option_cannot_make_git_write_a_file(space: Path) -> None:
    (space / "a").write_text("a\n")
    (space / "b").write_text("b\n")
    (space / "--output=.envrc").write_text("")
    await run(space, "git diff --no-index a b [-]-output=.envrc")
    assert not (space / ".envrc").exists()


async def test_a_globbed_sed_option_cannot_execute_the_input(space: Path) -> None:
    (space / "--expression=1e").write_text("")
    (space / "zz").write_text("touch pwned\n")
    await run(space, "sed [-]-expression=1e *")
    assert not (space / "pwned").exists()


def test_glob_results_starting_with_a_dash_are_rendered_as_paths(space: Path) -> None:
    for name in ("--pre=bash", "--compress-program=sh", "a.txt"):
        (space / name).write_text("TODO\n")
    for command in ("rg TODO *", "cat *"):  # `sort *` too, once sort is allowlisted
        verdict = analyze_command(command, cwd=str(space), roots=[str(space)], home=None)
        assert verdict.decision == "allow", verdict.reason
        rendered = verdict.rendered or ""
        assert "./--pre=bash" in rendered and "./--compress-program=sh" in rendered, rendered
        assert " --pre" not in rendered and " --compress" not in rendered, rendered


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")
async def test_a_file_named_pre_bash_cannot_make_ripgrep_run_code(space: Path) -> None:
    (space / "--pre=bash").write_text("")
    (space / "a.txt").write_text("touch pwned\n")
    await run(space, "rg TODO *")
    assert not (space / "pwned").exists()


async def test_cd_is_judged_where_bash_lands_logically(space: Path) -> None:
    (space / "a" / "b").mkdir(parents=True)
    os.symlink(space / "a" / "b", space / "link")
    ran = await run(space, "cd link/../.. && ls")
    assert "secret" not in ran.output.split()
    assert ran.error == "execution_denied" and ran.asked, ran
    ran = await run(space, "cd link/.. && pwd")
    assert ran.error is None and str(space) in ran.output, ran


async def test_cd_runs_as_the_physical_directory_it_was_judged_to_be(space: Path) -> None:
    (space / "a" / "b").mkdir(parents=True)
    os.symlink(space / "a" / "b", space / "link")
    verdict = analyze_command("cd link && ls", cwd=str(space), roots=[str(space)], home=None)
    assert verdict.rendered == f"cd -P -- {space}/a/b && ls"


async def test_posix_class_globs_cannot_climb_out_under_dash(space: Path) -> None:
    """dash matches `..` with `.[[:punct:]]`; the rendering leaves dash nothing to expand."""
    ran = await run(space, "cat .[[:punct:]]/secret", shell_path="/bin/sh")
    assert "OUTSIDE-SECRET" not in ran.output, ran
    ran = await run(space, "cat .?/secret", shell_path="/bin/sh")
    assert "OUTSIDE-SECRET" not in ran.output, ran


async def test_an_allowed_command_runs_its_rendering(space: Path) -> None:
    (space / "b.py").write_text("")
    (space / "a.py").write_text("")
    ran = await run(space, "echo *.py {1..3} ~+/x 'q' \"$PWD\"")
    assert ran.error is None, ran
    assert f"a.py b.py 1 2 3 {space}/x q {space}" in ran.output


async def test_a_conditional_cd_does_not_move_the_judged_directory(space: Path) -> None:
    (space / "sub").mkdir()
    ran = await run(space, "true || cd sub ; cat ../secret")
    assert "OUTSIDE-SECRET" not in ran.output, ran
    ran = await run(space, "false && cd sub ; cat ../secret")
    assert "OUTSIDE-SECRET" not in ran.output, ran


async def test_a_cd_inside_a_misread_pipeline_is_not_missed(space: Path) -> None:
    """tree-sitter-bash reads `cd .. && true 2>&1 | cat x` as `(cd .. && true) | cat x`."""
    (space / "sub").mkdir()
    ran = await run(space, "cd sub; cd .. && true 2>&1 | cat ../secret")
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


def test_a_here_string_is_not_rendered_for_a_shell_that_lacks_it(space: Path) -> None:
    """dash reads `cat <<< x` as a heredoc and the file `x`: never rendered, so never run
    unasked (also when metacharacters are looked through)."""
    for strict in (True, False):
        verdict = analyze_command(
            "cat <<< x", cwd=str(space), roots=[str(space)], home=None, deny_metacharacters=strict
        )
        assert verdict.decision == "needs-approval", verdict


async def test_a_cd_through_command_or_builtin_is_not_missed(space: Path) -> None:
    (space / "sub").mkdir()
    for wrapper in ("command", "builtin"):
        ran = await run(space, f"cd sub; {wrapper} cd ..; cat ../secret")
        assert "OUTSIDE-SECRET" not in ran.output, (wrapper, ran)
