"""Every row of ``corpus/commands.jsonl`` through ``analyze_command`` (loaded at run time).

Setting (corpus README): one root, a fresh temp directory, is the cwd; HOME is a directory outside
the root; no host rules; approval is not consulted.

Rows in ``readonly-mode`` assume ``read_only=True``, which the *policy* applies by mapping
needs-approval to deny (the analysis has no read-only switch); they are checked here with that
mapping, and end to end through ``CodingApprovalPolicy(read_only=True)`` in
``test_policy_corpus.py`` (policy half). Rows in ``approval-cache`` need a primed approval cache:
the analysis-level expectation (never allowed, deny wins) is checked here; the cache behaviour is
covered by ``test_policy_corpus.py::test_approval_cache_rows``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security._analysis._commands import CommandVerdict, analyze_command

from ._corpus import CORPUS_DIR, load_corpus

CORPUS = CORPUS_DIR / "commands.jsonl"


def load_rows() -> list[dict[str, Any]]:
    """The corpus rows; a missing corpus is an error (it is the acceptance test)."""
    return load_corpus("commands")


ROWS = load_rows()


@pytest.fixture
def setting(tmp_path: Path) -> tuple[str, str]:
    """(root, home): a fresh realpath'd root used as cwd, and a HOME outside it."""
    base = tmp_path.resolve()
    root = base / "root"
    home = base / "home"
    root.mkdir()
    home.mkdir()
    return str(root), str(home)


def decide(row: dict[str, Any], root: str, home: str) -> tuple[str, CommandVerdict]:
    verdict = analyze_command(row["cmd"], cwd=root, roots=[root], home=home)
    decision = verdict.decision
    if row["cat"] == "readonly-mode" and decision == "needs-approval":
        decision = "deny"  # what the policy does with read_only=True
    return decision, verdict


@pytest.mark.parametrize("row", ROWS, ids=lambda row: str(row["id"]))
def test_corpus_row(row: dict[str, Any], setting: tuple[str, str]) -> None:
    root, home = setting
    decision, verdict = decide(row, root, home)
    assert decision == row["expect"] or decision in row["also_ok"], (
        f"{row['id']} {row['cmd']!r}: got {decision} ({verdict.reason}); "
        f"expected {row['expect']} or {row['also_ok']} because {row['why']}"
    )
    if row["expect"] in ("deny", "needs-approval"):
        assert verdict.decision != "allow", f"{row['id']} must never be allowed"


def test_every_verdict_has_an_actionable_reason(setting: tuple[str, str]) -> None:
    root, home = setting
    for row in ROWS:
        verdict = analyze_command(row["cmd"], cwd=root, roots=[root], home=home)
        assert verdict.reason.strip(), row["id"]
        if verdict.decision != "allow":
            assert "`" in verdict.reason, f"{row['id']}: reason should quote the command"


def test_corpus_pass_count(setting: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """The whole corpus passes (the count is printed for the report)."""
    root, home = setting
    passed = 0
    for row in ROWS:
        decision, _ = decide(row, root, home)
        passed += decision == row["expect"] or decision in row["also_ok"]
    with capsys.disabled():
        print(f"\ncommand corpus: {passed}/{len(ROWS)} rows pass")
    assert passed == len(ROWS)


def test_corpus_is_the_full_command_corpus() -> None:
    assert len(ROWS) >= 100
    assert os.path.basename(CORPUS) == "commands.jsonl"
    assert {row["expect"] for row in ROWS} == {"allow", "deny", "needs-approval"}
