"""Unprovable constructs need approval; quoted metacharacters are plain text, not false positives.

``deny_metacharacters=True`` (default): substitutions, process substitutions, subshells, groups,
background jobs, heredocs/here-strings and file redirections are never allowed without approval.
``False``: those are looked through and their parts judged. Control flow, functions,
assignments, environment prefixes, newlines, parse errors and words whose value is only known at
run time (so any substitution result) need approval either way.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_security._analysis._commands import analyze_command


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("x\n")
    return str(workspace)


def decide(command: str, root: str, *, strict: bool = True) -> str:
    return analyze_command(
        command, cwd=root, roots=[root], home=None, deny_metacharacters=strict
    ).decision


QUOTED_METACHARACTERS = [
    "grep 'a|b' src/app.py",
    'grep -E "x;y|z&w" src',
    "echo 'a && b || c'",
    "echo '$(' is text",
    "echo '$(rm -rf /)'",
    "echo '`rm -rf /`'",
    'echo "rm -rf / > /etc/passwd"',
    "ls 'a > b'",
    'ls "x<y"',
    "ls a\\;b",
    "ls a\\|b",
    "echo '#!/bin/sh'",
    'grep -rn "curl | sh" src',
    "echo 'line1\\nline2'",
    "git log --format='%H|%s'",
    "rg -e 'a(b|c)' src",
    "find . -name '*.py'",
]


@pytest.mark.parametrize("command", QUOTED_METACHARACTERS)
def test_quoted_metacharacters_are_not_false_positives(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


CONSTRUCTS = [
    # (command, decision with True, decision with False)
    ("ls $(pwd)", "needs-approval", "needs-approval"),  # dynamic path operand
    ("echo $(pwd)", "needs-approval", "needs-approval"),  # a word only known at run time
    ("echo `pwd`", "needs-approval", "needs-approval"),
    ("(ls; pwd)", "needs-approval", "allow"),
    ("{ ls; pwd; }", "needs-approval", "allow"),
    ("ls &", "needs-approval", "allow"),
    ("echo hi > src/out.txt", "needs-approval", "allow"),
    ("cat <<< 'text'", "needs-approval", "allow"),
    ("diff <(ls) <(ls src)", "needs-approval", "needs-approval"),  # operands known at run time
    ("wc -l < src/app.py", "allow", "allow"),
    ("ls > /dev/null 2>&1", "allow", "allow"),
    ("if true; then ls; fi", "needs-approval", "needs-approval"),
    ("for f in a; do ls; done", "allow", "allow"),  # unrolled: each copy judged (issue 24)
    ("for f in a; do ls $f; done", "needs-approval", "needs-approval"),
    ("f() { ls; }; f", "needs-approval", "needs-approval"),
    ("x=1; ls", "needs-approval", "needs-approval"),
    ("export X=1", "needs-approval", "needs-approval"),
    ("PATH=. ls", "needs-approval", "needs-approval"),
    ("LD_PRELOAD=x.so ls", "needs-approval", "needs-approval"),
    ("ls\npwd", "needs-approval", "needs-approval"),
    ("ls\rpwd", "needs-approval", "needs-approval"),
    ("ls (", "needs-approval", "needs-approval"),
    ("ls $X", "needs-approval", "needs-approval"),
    ("./ls", "needs-approval", "needs-approval"),
    ("/bin/ls", "needs-approval", "needs-approval"),
    ("ls && pwd", "allow", "allow"),
    ("ls | wc -l", "allow", "allow"),
    ("ls; pwd", "allow", "allow"),
    ("ls || pwd", "allow", "allow"),
]


@pytest.mark.parametrize(("command", "strict", "lenient"), CONSTRUCTS)
def test_constructs_under_both_settings(command: str, strict: str, lenient: str, root: str) -> None:
    assert decide(command, root, strict=True) == strict, command
    assert decide(command, root, strict=False) == lenient, command


def test_a_relaxed_construct_still_hides_nothing(root: str) -> None:
    for command in ("echo $(rm -rf /)", "(ls; rm -rf /)", "ls & rm -rf /", "echo x > /etc/x"):
        assert decide(command, root, strict=False) == "deny", command


_TOKENS = [*"ab /.-~$'\"\\`;|&<>(){}[]*?!#=\n\t", "rm", "ls", "$(", "${", " -rf ", "cat"]
_SHELLISH = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=_SHELLISH)
def test_any_text_gets_a_verdict_with_a_reason(command: str, root: str) -> None:
    verdict = analyze_command(command, cwd=root, roots=[root], home="/nonexistent")
    assert verdict.decision in ("allow", "deny", "needs-approval")
    assert verdict.reason
    if verdict.decision == "allow":
        assert "\n" not in command and "\r" not in command
    again = analyze_command(command, cwd=root, roots=[root], home="/nonexistent")
    assert again == verdict


def test_invalid_input_is_denied_with_a_reason(root: str) -> None:
    assert analyze_command("", cwd=root, roots=[root], home=None).decision == "deny"
    assert analyze_command("ls\x00", cwd=root, roots=[root], home=None).decision == "deny"
    assert analyze_command("ls", cwd="relative", roots=[root], home=None).decision == "deny"
    verdict = analyze_command("ls", cwd=root, roots=[], home=None)
    assert verdict.decision == "deny"
    assert "no workspace roots" in verdict.reason
