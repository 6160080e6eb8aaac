"""Red-team round 3: reads through `ls -a | xargs`, `time cd`, and bracket globs that stalled
check(). Each test asserts the secure outcome and runs a no-policy control proving the attack
live."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from prism.core.testing import scaled

from ._redteam import control, run, ws

__all__ = ["ws"]  # the workspace fixture, used by name

pytestmark = pytest.mark.anyio


# `ls -a` prints `..`; xargs hands it to a recursive reader, which reads the parent directory.
XARGS_DOTDOT = [
    "ls -a | xargs grep -r OUTSIDE",
    "ls -a . | xargs grep -rl OUTSIDE",
    "ls -a | xargs -r -t -x -n2 grep -r OUTSIDE",
    "ls -a | xargs du -a",
    "ls -a | xargs ls",
    "ls --all | xargs grep -r OUTSIDE",
    "ls -f | xargs grep -r OUTSIDE",
    "ls -U -a | xargs grep -r OUTSIDE",
    "ls -Ua | xargs grep -r OUTSIDE",
    "ls -d .. | xargs grep -r OUTSIDE",
]


@pytest.mark.parametrize("command", XARGS_DOTDOT)
async def test_ls_dot_dot_through_xargs_does_not_read_outside(ws: Path, command: str) -> None:
    (ws / "a").write_text("1\n")
    shown = await control(ws, command)
    assert "secret" in shown.output, shown  # the parent directory really is read
    ran = await run(ws, command, read_only=True)
    assert ran.error == "execution_denied", ran
    assert "secret" not in ran.output, ran


async def test_ls_almost_all_through_xargs_still_runs(ws: Path) -> None:
    (ws / "a").write_text("inside OUTSIDE\n")
    ran = await run(ws, "ls -A | xargs grep -r OUTSIDE", read_only=True)
    assert ran.error is None, ran
    assert "inside OUTSIDE" in ran.output and "secret" not in ran.output, ran


def _decoy(root: Path) -> None:
    """`d/link` points two levels up (outside); `link/` in the root is a decoy directory."""
    (root / "d").mkdir()
    os.symlink("../..", root / "d" / "link")
    (root / "link").mkdir()
    (root / "link" / "secret").write_text("decoy\n")


# `time cd d` runs the cd in the current shell, but the policy keeps judging later relative
# paths from the old directory: `link/secret` is judged as `ws/link/secret`, runs as `ws/d/link/…`.
TIME_CD = [
    "time cd d; cat link/secret",
    "time cd d && cat link/secret",
    "time -p cd d; cat link/secret",
    "time -p -- cd d; cat link/secret",
    "time ! cd d; cat link/secret",
    "! time cd d; cat link/secret",
    "time command cd d; cat link/secret",
    "time builtin cd d; cat link/secret",
    "time pushd d >/dev/null; cat link/secret",
    "time cd d\ncat link/secret",
    "! cd d; cat link/secret",
]


@pytest.mark.parametrize("command", TIME_CD)
async def test_time_cd_moves_the_directory_the_policy_judges(ws: Path, command: str) -> None:
    _decoy(ws)
    shown = await control(ws, command)
    assert "OUTSIDE-SECRET" in shown.output, shown
    ran = await run(ws, command, read_only=True)
    assert "OUTSIDE-SECRET" not in ran.output, ran


# An unclosed bracket expression repeated (`[[:` ×1000, a 3 KB command) makes the glob analysis
# roughly cubic in the word length: ~35-40 s of check() on one core; the 5 s analysis bound is
# only noticed afterwards ("analysis took longer than 5.0 s"). bash expands it at once.
# Just under the bound of `[` per word (the scan is then linear per bracket) with a long tail.
@pytest.mark.parametrize(
    "word", [u * 1000 for u in ("[[:", "[[.", "[[=")] + ["[[:" * 128 + "x" * 20_000 + ":]"]
)
async def test_unclosed_bracket_globs_do_not_stall_the_check(ws: Path, word: str) -> None:
    command = "cat " + word
    started = time.monotonic()
    shown = await control(ws, command)
    assert shown.output.startswith("cat: "), shown
    assert time.monotonic() - started < scaled(5)
    started = time.monotonic()
    ran = await run(ws, command, read_only=True)
    assert time.monotonic() - started < scaled(5), ran
