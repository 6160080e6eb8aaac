"""Host ``CommandRule``s: validated at construction; deny first, ``ask`` forces approval."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security._analysis._commands import analyze_command
from prism.coding_security._analysis._rules import CommandRule


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "tests").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return str(workspace)


def decide(command: str, root: str, *rules: CommandRule) -> str:
    home = str(Path(root).parent / "home")
    return analyze_command(command, cwd=root, roots=[root], home=home, rules=rules).decision


_WRONG_TYPE = (
    "str glob or a compiled re.Pattern",
    "must be a str pattern when compiled",
    "reason must be a str or None, got 3",
)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pattern": "", "action": "deny"}, "must be a non-blank str, got "),
        ({"pattern": "   ", "action": "deny"}, "must be a non-blank str, got "),
        ({"pattern": "ls\nrm", "action": "allow"}, "newline"),
        ({"pattern": "ls\x00", "action": "allow"}, "NUL"),
        ({"pattern": "x" * 5000, "action": "allow"}, "must be at most 4096 characters, got 'xxx"),
        (
            {"pattern": "echo 'unclosed", "action": "allow"},
            "must be shell words (No closing quotation), got ",
        ),
        ({"pattern": 42, "action": "allow"}, "str glob or a compiled re.Pattern"),
        ({"pattern": re.compile(b"ls"), "action": "allow"}, "must be a str pattern when compiled"),
        (
            {"pattern": "ls", "action": "permit"},
            "action must be one of 'allow', 'ask', 'deny', got 'permit'",
        ),
        ({"pattern": "ls", "action": "allow", "reason": 3}, "reason must be a str or None, got 3"),
    ],
)
def test_invalid_rules_are_rejected_at_construction(kwargs: dict[str, Any], message: str) -> None:
    wrong_type = message in _WRONG_TYPE  # a value of the wrong type is a TypeError
    with pytest.raises(TypeError if wrong_type else ValueError, match=re.escape(message)) as raised:
        CommandRule(**kwargs)
    assert str(raised.value).startswith("CommandRule.")


def test_an_allow_rule_allows_a_command_off_the_allowlist(root: str) -> None:
    rule = CommandRule("pytest *", "allow")
    assert decide("pytest -q", root) == "needs-approval"
    assert decide("pytest -q", root, rule) == "allow"
    assert decide("pytest", root, rule) == "allow"  # trailing " *" also matches nothing more
    assert decide("pytest -q tests/", root, rule) == "allow"


def test_an_allow_rule_still_requires_paths_inside_the_roots(root: str) -> None:
    assert decide("pytest /etc/x", root, CommandRule("pytest *", "allow")) == "needs-approval"


def test_an_allow_rule_never_skips_the_deny_set(root: str) -> None:
    anything = CommandRule("*", "allow")
    assert decide("rm -rf /", root, anything) == "deny"
    assert decide("curl x | sh", root, anything) == "deny"
    assert decide("echo x > /etc/cron.d/x", root, anything) == "deny"


def test_an_allow_rule_does_not_cover_constructs_that_are_not_plain(root: str) -> None:
    rule = CommandRule("make *", "allow")
    assert decide("make build", root, rule) == "allow"
    assert decide("make $(cat target)", root, rule) == "needs-approval"
    assert decide("CC=evil make", root, rule) == "needs-approval"


def test_an_allow_rule_does_not_cover_a_path_qualified_executable(root: str) -> None:
    assert decide("./make build", root, CommandRule("make *", "allow")) == "needs-approval"
    assert decide("./make build", root, CommandRule("./make *", "allow")) == "allow"


def test_a_deny_rule_matches_every_flag_spelling(root: str) -> None:
    rule = CommandRule("git push --force *", "deny", "force pushes are forbidden here")
    for command in (
        "git push --force origin main",
        "git push -f origin main",
        "git push origin main --force",
        "timeout 9 git push -f x",
    ):
        verdict = analyze_command(command, cwd=root, roots=[root], home=None, rules=[rule])
        assert verdict.decision == "deny", command
        assert "force pushes are forbidden here" in verdict.reason
    assert decide("git push origin main", root, rule) == "needs-approval"


def test_a_deny_rule_sees_through_paths_quotes_and_homoglyphs(root: str) -> None:
    rule = CommandRule("rm -rf *", "deny")
    for command in ("/bin/rm -r -f build", "'r'm --recursive --force build", "ｒｍ -rf build"):
        assert decide(command, root, rule) == "deny", command


def test_a_deny_rule_beats_the_allowlist(root: str) -> None:
    assert decide("git status", root, CommandRule("git status", "deny")) == "deny"


def test_an_ask_rule_forces_approval_of_an_allowlisted_command(root: str) -> None:
    assert decide("cat tests/x", root, CommandRule("cat *", "ask")) == "needs-approval"
    assert decide(
        "cat tests/x", root, CommandRule("cat *", "ask"), CommandRule("cat *", "allow")
    ) == ("needs-approval")


def test_regex_rules_match_the_whole_normalized_text(root: str) -> None:
    assert decide(
        "npm run test", root, CommandRule(re.compile(r"npm run (test|lint)"), "allow")
    ) == ("allow")
    assert decide("npm run test -- x", root, CommandRule(re.compile(r"npm run test"), "allow")) == (
        "needs-approval"
    )
    assert decide("rm -r -f x", root, CommandRule(re.compile(r"rm -f -r .*"), "deny")) == "deny"


def test_rules_apply_to_each_simple_command(root: str) -> None:
    rule = CommandRule("pytest *", "allow")
    assert decide("pytest -q && ls", root, rule) == "allow"
    assert decide("pytest -q && npm publish", root, rule) == "needs-approval"
