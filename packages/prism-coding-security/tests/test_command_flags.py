"""Semantic flag matching: every spelling of the same options reads the same."""

from __future__ import annotations

import pytest

from prism.coding_security._analysis._options import parse_args
from prism.coding_security._analysis._rules import normalized_text
from prism.coding_security._analysis._specs import SPECS
from prism.coding_security._analysis._words import Arg


def args(text: str) -> list[Arg]:
    return [Arg(word) for word in text.split()]


def norm(text: str) -> str:
    return normalized_text(args(text), canonical=True)


@pytest.mark.parametrize(
    "spelling",
    [
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -f -r x",
        "rm -R -f x",
        "rm --recursive --force x",
        "rm --force --recursive x",
        "rm --recur --fo x",
        "rm x -rf",
        "rm -r x -f",
    ],
)
def test_rm_spellings_normalize_alike(spelling: str) -> None:
    assert norm(spelling) == "rm -f -r x"


def test_double_dash_ends_options() -> None:
    parsed = parse_args(args("-f -- -r x"), SPECS["rm"])
    assert parsed.flags == {"-f"}
    assert [a.text for a in parsed.operands] == ["-r", "x"]


def test_value_options_take_the_rest_of_the_cluster_or_the_next_word() -> None:
    for spelling in ("-n 50 f", "-n50 f", "--lines=50 f", "--lines 50 f", "--li=50 f"):
        parsed = parse_args(args(spelling), SPECS["head"])
        assert [v.text for v in parsed.values("-n")] == ["50"], spelling
        assert [a.text for a in parsed.operands] == ["f"], spelling


def test_numeric_short_options() -> None:
    parsed = parse_args(args("-50 f"), SPECS["head"])
    assert parsed.values("-#")[0].text == "50"


def test_ambiguous_abbreviation_is_not_guessed() -> None:
    parsed = parse_args(args("--in x"), SPECS["grep"])  # --include or --initial-tab?
    assert "--in" in parsed.unknown


def test_attached_only_values() -> None:
    parsed = parse_args(args("-i.bak -e s/a/b/ f"), SPECS["sed"])
    assert [v.text for v in parsed.values("-i")] == [".bak"]
    assert [v.text for v in parsed.values("-e")] == ["s/a/b/"]
    assert [a.text for a in parsed.operands] == ["f"]


def test_stop_at_operand_finds_the_wrapped_command() -> None:
    parsed = parse_args(args("-n 10 rm -rf /"), SPECS["head"], stop_at_operand=True)
    assert parsed.rest == 2


def test_unknown_commands_keep_their_words() -> None:
    assert norm("mytool -xyz --flag=1 a") == "mytool -xyz --flag=1 a"


def test_git_subcommand_flags_normalize() -> None:
    assert norm("git push -f origin main") == norm("git push --force origin main")
    assert norm("git push -f origin main") == "git push -f origin main"


def test_executable_names_fold_for_deny_matching() -> None:
    assert norm("/usr/bin/../bin/rm -rf x") == "rm -f -r x"
    assert norm("ＲＭ -rf x") == "rm -f -r x"
    assert normalized_text(args("./ls -la"), canonical=False).startswith("./ls ")
