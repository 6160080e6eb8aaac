"""Runs docs/examples/coding_agent.py end to end (asyncio and trio) and checks what it prints.

The example is documentation, so this test keeps it from rotting: every feature it shows must
appear in its output, it must exit 0, and its MCP server's process group must be gone.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).with_name("coding_agent.py")
TIMEOUT_SECONDS = 120
FAKE_TOKEN = "sk-demo-5f3c9a1e7b2d4068"  # the example's fake secret (must never be printed)
SANDBOX_NOTE = "NOTE: bubblewrap is unavailable"


def run_example(*args: str, path_prefix: str | None = None) -> str:
    env = dict(os.environ)
    if path_prefix is not None:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env=env,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid`` (the server runs in its own group)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


def search(output: str, pattern: str) -> re.Match[str]:
    """The first line matching ``pattern``; fails the test with the whole output otherwise."""
    for line in output.splitlines():
        if found := re.search(pattern, line):
            return found
    raise AssertionError(f"no line matches {pattern!r} in:\n{output}")


def line_of(output: str, pattern: str) -> str:
    return search(output, pattern).string


# One xdist worker runs the whole module, and the example runs once per backend there
# (xdist may interleave the two backends' tests, which would set the fixture up again).
pytestmark = pytest.mark.xdist_group("coding-agent-example")


@functools.cache
def _example_output(backend: str) -> str:
    return run_example("--backend", backend)


@pytest.fixture(scope="module", params=["asyncio", "trio"])
def output(request: pytest.FixtureRequest) -> str:
    return _example_output(request.param)


def test_says_the_model_is_scripted(output: str) -> None:
    assert "ScriptedProvider (a scripted stand-in" in output
    assert "--- model turn 4 (scripted): answers:" in output
    assert "run: succeeded (stop) after 4 model turns" in output


def test_mcp_tool_result_comes_back(output: str) -> None:
    line_of(output, r"c1 +finished mcp:docs:search \[ok\] Style: greetings read 'Hello, <name>!'")


def test_bad_arguments_are_blocked_by_validation(output: str) -> None:
    line = line_of(output, r"c4 +BLOCKED +mcp:docs:search \[validation_failed\]")
    assert "/limit: must be integer" in line
    assert not re.search(r"c4 +started", output), "a blocked call must never start"


def test_policy_denies_outside_path_and_rm_rf_without_asking(output: str) -> None:
    line = line_of(output, r"c5 +finished read \[execution_denied\]")
    assert "outside the workspace roots" in line
    line = line_of(output, r"c10 +finished shell \[execution_denied\]")
    assert "rm -rf /" in line
    assert not re.search(r'APPROVAL asked: .*"rm -rf /"', output)


def test_approval_is_asked_then_granted_and_denied(output: str) -> None:
    lines = output.splitlines()
    asked = [i for i, line in enumerate(lines) if "APPROVAL asked:" in line]
    assert len(asked) == 2, output
    assert '"python3 -m unittest -q"' in lines[asked[0]]
    assert lines[asked[0] + 1].strip() == "APPROVAL granted by the user"
    assert '"pip install requests"' in lines[asked[1]]
    assert lines[asked[1] + 1].strip() == "APPROVAL denied by the user"
    assert line_of(output, r"c8 +finished shell \[ok\]").endswith("OK")
    assert "approval denied" in line_of(output, r"c9 +finished shell \[execution_denied\]")


def test_secret_is_redacted_everywhere(output: str) -> None:
    assert FAKE_TOKEN not in output
    line_of(output, r"c2 +finished mcp:docs:search \[ok\] .*--token \[REDACTED\]")
    line_of(output, r"secret: \[REDACTED\] appears [1-9]\d* times; the token appears 0 times")
    assert "secret in this output: 0 line(s)" in output


def test_turn_one_runs_calls_in_parallel(output: str) -> None:
    most = int(search(output, r"parallel: turn 1 had up to (\d+) calls")[1])
    assert most >= 2, "read-only calls of one turn should overlap with tool_concurrency=4"


def test_ledger_and_workspace_summary(output: str) -> None:
    assert "ledger: 19 rows: blocked=1, finished=9, started=9" in output
    assert "workspace file: greet.py" in output
    assert "workspace file: test_greet.py" in output


def test_cleanup_leaves_no_server_and_no_workspace(output: str) -> None:
    pid = int(search(output, r"MCP server started over stdio \(pid (\d+)\)")[1])
    assert f"cleanup: MCP server process {pid} gone" in output
    assert group_members(pid) == [], "the example's MCP server (or a child) survived"
    workspace = search(output, r"^workspace: (\S+)")[1]
    assert "cleanup: workspace removed: True" in output
    assert not os.path.exists(workspace)


def test_shell_runs_in_the_sandbox(output: str) -> None:
    if SANDBOX_NOTE in output:
        pytest.skip("bubblewrap is unavailable here; the example fell back to local execution")
    assert "sandbox: shell commands run inside bubblewrap" in output
    assert "shell: commands ran inside the bubblewrap sandbox" in output


def test_falls_back_to_local_shell_when_bwrap_cannot_start(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"  # fails like bwrap in a container without user namespaces
    fake.write_text('#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n')
    fake.chmod(0o755)
    output = run_example("--backend", "asyncio", path_prefix=str(tmp_path))
    assert f"{SANDBOX_NOTE} (" in output
    assert "shell: commands ran locally (no sandbox)" in output
    assert line_of(output, r"c8 +finished shell \[ok\]").endswith("OK")
    assert FAKE_TOKEN not in output
