"""Red-team round 3 variants the policy holds (kept as regressions): xargs fed by `ls`/`find`,
unrolled for loops, `cd` in every position, globs through links, and the write tool through
links. Each runs through the real tools on real directories, beside a no-policy control."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from prism.coding_security import CodingApprovalPolicy
from prism.coding_tools import create_coding_tools
from prism.core import AbortController, ToolExecutionContext
from prism.core.testing import scaled

from ._redteam import control, run, ws

__all__ = ["ws"]  # the workspace fixture, used by name

pytestmark = pytest.mark.anyio


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content.startswith("@link:"):
            os.symlink(content.removeprefix("@link:"), path)
        else:
            path.write_text(content)


# Each row: files, command, a text the control prints (the attack is live). In read-only mode
# the policy must refuse: nothing outside is read.
REFUSED = [
    # xargs fed by ls/find whose items are not plain names
    ({"up": "@link:../secret"}, "ls -l | xargs -n1 cat", "OUTSIDE-SECRET"),
    ({"a": "1"}, "find . -printf '../secret\\n' | xargs cat", "OUTSIDE-SECRET"),
    ({"a": "1"}, "find .. -maxdepth 1 | xargs cat", "OUTSIDE-SECRET"),
    ({"a": "1"}, "ls -a | xargs -n1 find", "../secret"),
    ({"up": "@link:..", "a": "1"}, "ls -L up | xargs cat", "cat: secret"),
    ({"a b": "", "a": "x", "b": "y"}, "ls | xargs -n1 cat", "xxyy"),
    # names listed in another directory, run from the working directory (a link there)
    ({"d/x": "1", "x": "@link:../secret"}, "ls d | xargs cat", "OUTSIDE-SECRET"),
    ({"d/x": "1", "x": "@link:../secret"}, "ls -R | xargs cat", "OUTSIDE-SECRET"),
    # cd in a group, subshell, function, condition, pipeline, after CDPATH, `cd -`
    ({"d/x": "1"}, "{ cd d; }; cat ../../secret", "OUTSIDE-SECRET"),
    ({"d/x": "1"}, "if cd d; then cat ../../secret; fi", "OUTSIDE-SECRET"),
    ({"d/x": "1"}, "f() { cd d; }; f; cat ../../secret", "OUTSIDE-SECRET"),
    ({"d/x": "1"}, "cd d || true; cat ../../secret", "OUTSIDE-SECRET"),
    ({"d/x": "1"}, "! cd d; cat ../../secret", "OUTSIDE-SECRET"),
    ({"d/link": "@link:../..", "link/secret": "decoy\n"}, "command cd d; cat link/secret", "OUT"),
    ({"d/link": "@link:../..", "link/secret": "decoy\n"}, "builtin cd d; cat link/secret", "OUT"),
    ({"d/link": "@link:../..", "link/secret": "decoy\n"}, "cd d >&2; cat link/secret", "OUT"),
    ({"d/link": "@link:../..", "link/secret": "decoy\n"}, "\\cd d; cat link/secret", "OUT"),
    ({"up": "@link:..", "a": "1"}, "time cd up; cat secret", "OUTSIDE-SECRET"),
    # for loops: the loop values are judged, other bodies are control flow
    ({"a.py": "1\n"}, 'for f in ../secret; do cat "$f"; done', "OUTSIDE-SECRET"),
    ({"a.py": "1\n"}, 'for f in .. ; do grep -r OUTSIDE "$f"; done', "OUTSIDE-SECRET"),
    ({"-r": "", "a.py": "1\n"}, "for f in *; do grep OUTSIDE $f ..; done", "OUTSIDE-SECRET"),
    ({"d/x": "1"}, 'for f in d; do cd "$f"; done; cat ../../secret', "OUTSIDE-SECRET"),
    ({"a.py": "1\n"}, 'for f in a.py; do f=../secret; cat "$f"; done', "OUTSIDE-SECRET"),
    ({"a.py": "1\n"}, "for PWD in ..; do cat $PWD/secret; done", "OUTSIDE-SECRET"),
    ({"a.py": "1\n"}, "for f in a.py; do cat; done < ../secret", "OUTSIDE-SECRET"),
    # globs whose directory part leads outside through a link
    ({"up": "@link:..", "a": "1"}, "cat up/*", "OUTSIDE-SECRET"),
    ({"up": "@link:..", "a": "1"}, "cat u*/s*", "OUTSIDE-SECRET"),
    ({"up": "@link:..", "a": "1"}, "cat */secret", "OUTSIDE-SECRET"),
]


@pytest.mark.parametrize(("files", "command", "shown"), REFUSED)
async def test_outside_reads_are_refused_in_read_only_mode(
    ws: Path, files: dict[str, str], command: str, shown: str
) -> None:
    _plant(ws, files)
    live = await control(ws, command)
    assert shown in live.output, live
    ran = await run(ws, command, read_only=True)
    assert ran.error == "execution_denied" and not ran.asked, ran
    assert "OUTSIDE-SECRET" not in ran.output, ran


# Globs that bash 5.2 leaves as written (no `.`/`..` match): the rendering reads nothing outside.
@pytest.mark.parametrize("command", ["cat .*/secret", "cat **/secret", "echo [.][.]/*"])
async def test_dot_globs_never_match_the_parent(ws: Path, command: str) -> None:
    ran = await run(ws, command, read_only=True)
    assert "OUTSIDE-SECRET" not in ran.output and "ws" not in ran.output.split(), ran


async def test_a_for_loop_is_unrolled_to_its_judged_copies(ws: Path) -> None:
    (ws / "a.py").write_text("1\n")
    ran = await run(ws, 'for f in *.py; do wc -l "$f"; done', read_only=True)
    assert ran.error is None and ran.output.strip() == "1 a.py", ran


def _context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )


def _link_hooks(root: Path) -> None:
    (root / "hk").mkdir()
    subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", "hk"], check=True)


def _repository(tmp_path: Path, setup: Callable[[Path], object]) -> Path:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=scaled(30))
    setup(root)
    return root


# Each row: setup, path the write tool is given, the protected file that must stay unchanged.
WRITES = [
    (lambda r: os.link(r / ".git/config", r / "x"), "x", ".git/config"),
    (lambda r: os.symlink(".git", r / "g"), "g/config", ".git/config"),
    (lambda r: os.symlink(".git/config", r / "c"), "c", ".git/config"),
    (lambda r: os.symlink(".git/hooks", r / "h"), "h/pre-commit", ".git/hooks/pre-commit"),
    (lambda r: os.symlink(".", r / "self"), "self/.git/config", ".git/config"),
    (
        lambda r: (os.symlink("g2", r / "g1"), os.symlink(".git", r / "g2")),
        "g1/config",
        ".git/config",
    ),
    (lambda r: (os.mkdir(r / "v"), os.symlink("v", r / ".vscode")), "v/tasks.json", "v/tasks.json"),
    (_link_hooks, "hk/pre-commit", "hk/pre-commit"),
]


@pytest.mark.parametrize(("setup", "path", "target"), WRITES)
async def test_the_write_tool_refuses_protected_files_through_links(
    tmp_path: Path, setup: Callable[[Path], object], path: str, target: str
) -> None:
    root = _repository(tmp_path, setup)
    before = (root / target).read_bytes() if (root / target).exists() else None
    policy = CodingApprovalPolicy(roots=[root])
    tools = {tool.name: tool for tool in create_coding_tools(root, execution_policy=policy)}
    with anyio.fail_after(scaled(30)):
        result = await tools["write"].execute({"path": path, "content": "PWN\n"}, _context())
    assert result.error is not None and result.error.code == "execution_denied", result
    after = (root / target).read_bytes() if (root / target).exists() else None
    assert after == before
