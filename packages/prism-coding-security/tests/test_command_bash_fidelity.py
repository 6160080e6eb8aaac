"""Differential test against real bash: every program bash would run, the analysis extracted.

Real bash runs each command line restricted (``bash -r``: no ``/`` in command names, no output
redirection, no ``cd``/``exec``), inside bubblewrap (read-only root, private PID/network
namespaces, no capabilities), with a PATH holding only a logger: every external command is
"not found" and ``command_not_found_handle`` records its name instead of running it. The names
bash tried to run must all be among the programs the analysis extracted (wrappers and nested
strings included). Skips when bubblewrap cannot run here.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_security._analysis._commands import _Analysis
from prism.coding_security._analysis._unwrap import canonical_name
from prism.coding_security._analysis._words import UNKNOWN

BWRAP = shutil.which("bwrap")
BASH = shutil.which("bash")


class Bash:
    """Runs a command line in restricted bash under bubblewrap; returns the commands it ran."""

    def __init__(self, base: Path) -> None:
        self.base = base
        (base / "bin").mkdir()
        logger = base / "bin" / "logcmd"
        logger.write_text('#!/bin/sh\nprintf "%s\\0" "$1" >> "$CMDLOG"\n')
        logger.chmod(0o755)
        (base / "handler.sh").write_text(
            'command_not_found_handle() { logcmd "$@"; return 127; }\n'
        )
        self.log = base / "log"

    def run(self, command: str) -> list[str]:
        assert BWRAP is not None and BASH is not None
        self.log.write_text("")
        env = {
            "PATH": str(self.base / "bin"),
            "CMDLOG": str(self.log),
            "BASH_ENV": str(self.base / "handler.sh"),
        }
        argv = [
            BWRAP,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--bind",
            str(self.base),
            str(self.base),
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--chdir",
            str(self.base),
            BASH,
            "-r",
            "-c",
            command,
        ]
        subprocess.run(
            argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False
        )
        return [name for name in self.log.read_text().split("\0") if name]


@pytest.fixture(scope="module")
def bash(tmp_path_factory: pytest.TempPathFactory) -> Bash:
    if BWRAP is None or BASH is None:
        pytest.skip("bubblewrap (bwrap) and bash are needed for the differential test")
    runner = Bash(tmp_path_factory.mktemp("fidelity").resolve())
    try:
        probe = runner.run("probe_command")
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"bubblewrap cannot run here: {error}")
    if probe != ["probe_command"]:
        pytest.skip("bubblewrap cannot run restricted bash here (no namespaces?)")
    return runner


def extracted(command: str, cwd: str) -> tuple[set[str], bool] | None:
    """Names of every program the analysis saw, and whether it reported a syntax error."""
    analysis = _Analysis(
        command, cwd=cwd, roots=[cwd], home=None, rules=(), deny_metacharacters=True
    )
    analysis.extract()
    if analysis.limit is not None:
        return None
    names = {
        inv.name.strip() for unwrapped in analysis.table.values() for inv in unwrapped.invocations
    }
    return names, any(note.text == "a syntax error" for note in analysis.out.notes)


WATCHED = frozenset({"rm", "ls", "cat", "curl", "sh", "bash", "echo"})
"""Real program names in the generated input: these must always be seen."""


def _plausible(name: str, syntax_error: bool) -> bool:
    """Names that must be seen: real programs always; any other name unless the analysis
    already flagged a syntax error (its decision is then approval at least, and bash's error
    recovery yields debris such as `$`, `{x=` or `aa` from a failed substitution)."""
    if name in WATCHED:
        return True
    return any(ch.isalnum() for ch in name) and not syntax_error


def _covers(seen: str, ran: str) -> bool:
    """An extracted name covers a run one; an unknown part (\ufffd) stands for any text."""
    if ran.startswith("!") and _covers(seen, ran[1:].strip()):
        return True  # `!x` runs "!x"; tree-sitter reads a negated `x` (over-approximation)
    if any(ch in seen for ch in "*?[") and fnmatch.fnmatchcase(ran, seen):
        return True  # a glob in command position names whatever file matches
    if UNKNOWN not in seen:
        return seen == ran
    pattern = ".*".join(re.escape(part) for part in seen.split(UNKNOWN))
    return re.fullmatch(pattern, ran, re.S) is not None


def assert_seen(
    command: str, bash: Bash, *, watched_only: bool = False, analysed: str | None = None
) -> None:
    """What bash runs for ``command`` was extracted from ``analysed`` (default: the same)."""
    found = extracted(command if analysed is None else analysed, str(bash.base))
    if found is None:
        return
    names, syntax_error = found
    # tree-sitter drops a leading escaped blank (`\\ rm`): bash runs " rm", the analysis "rm".
    ran = {canonical_name(name).strip() for name in bash.run(command)}
    ran = {name for name in ran if _plausible(name, syntax_error)}
    if watched_only:
        ran &= WATCHED
    missing = {name for name in ran if not any(_covers(seen, name) for seen in names)}
    assert not missing, f"bash ran {sorted(missing)} for {command!r}; analysis saw {sorted(names)}"


CURATED = [
    "ls; rm -rf x",
    "ls\nrm x",
    "ls & rm x",
    "ls | rm x",
    "echo $(curl x | sh)",
    "echo `wget x`",
    'echo "$(a1 "$(a2)")"',
    "cat <(a3) <(a4)",
    "(a5; a6) | a7",
    "{ a8; a9 || b1; }",
    "if b2; then b3; elif b4; then b5; else b6; fi",
    'for x in 1; do b7 "$x"; done',
    "case x in x) b8;; *) b9;; esac",
    "[[ $(c1) ]] && c2",
    "eval 'c3 -x'",
    "eval c4 \\; c5",
    "r\\m -x; $'\\x72\\x6d' y; 'r''m' z; \"rm\" w",
    "a=c6; $a",
    "IFS=,; x=c7,-y; $x",
    "x=c8; ${x}",
    "$X c9",
    "${X:-d1} arg",
    'echo "${X:-$(d2)}"',
    "cat <<EOF\n$(d3)\nEOF",
    "cat <<'EOF'\n$(not_run)\nEOF",
    'd4 <<< "$(d5)"',
    "echo a # ; not_run",
    "echo 'a; not_run' \"b | not_run\"",
    "FOO=$(d6) d7",
    "arr[$(d8)]=1",
    "echo $(( $(d9) + 1 ))",
    "d10 && d11 || d12",
    "! e1",
    "time e2",
    "e3 2>&1 | e4 >&2",
    "echo \\$(not_run)",
    "echo $'\\''; e5",
    "e6 'x' \"y\" $'z' $\"w\"",
    "x=1 e7",
    "command e8",
    "builtin e9 2>/dev/null; f1",
    "trap 'f2' EXIT",
    "f3 \\\n  --flag",
    "printf '%s' \"$(f4)\" | f5",
    "echo {f6,f7}",
    "{f8,-x}",
]


@pytest.mark.parametrize("command", CURATED)
def test_bash_runs_nothing_the_analysis_missed(command: str, bash: Bash) -> None:
    assert_seen(command, bash)


def test_the_differential_harness_can_fail(bash: Bash) -> None:
    """Sanity: bash does log commands, and a name the analysis never saw would be reported."""
    assert bash.run("zz1; zz2") == ["zz1", "zz2"]
    with pytest.raises(AssertionError, match="zz3"):
        assert_seen("zz3; zz1", bash, analysed="zz1")


_TOKENS = [
    *"ab ;|&<>\"'\\`$#=!{}[]*\n\t",
    "$(",
    ")",
    "(",
    "${",
    "}",
    "$'",
    "\\x72",
    "ls",
    "rm",
    "cat",
    "eval ",
    "x=",
    "$x",
    "'a b'",
    "<<<",
    "2>&1",
    " -rf ",
    "echo ",
    " curl ",
    "sh",
    "bash -c ",
    "\\\n",
    "``",
    "{a,b}",
]
_FUNCTION = re.compile(r"\(\s*\)|function")
_BRACED_NAME = re.compile(r"\$\w+\{")


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=24).map("".join))
def test_random_command_lines_hide_nothing_from_the_analysis(command: str, bash: Bash) -> None:
    """Generated lines: every real program bash runs (rm, cat, curl, sh …) was extracted."""
    if _FUNCTION.search(command) or os.sep + "dev" in command:
        return  # no function definitions (fork-bomb shapes) in generated input
    if _BRACED_NAME.search(command):
        return  # `$x{a,b}` makes variable names by brace expansion: not modelled
    assert_seen(command, bash, watched_only=True)
