"""A differential against the command-safety rules of OpenAI Codex, from our own data file.

``data/codex_differential.jsonl`` lists commands with what Codex decides (``auto``: approved
without asking; ``ask``: not known safe; ``dangerous``: flagged) and what Prism decides. Nothing
Codex flags is allowed; what Codex asks about is allowed only on rows marked ``read_only`` (a
read-only command whose options Prism's allowlist proves read-only; docs/security.md). Where
Codex auto-approves, Prism allows too unless its own reason holds; the file records each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security._analysis._commands import analyze_command

DATA = Path(__file__).parent / "data" / "codex_differential.jsonl"
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()
]


@pytest.fixture
def root(tmp_path: Path) -> str:
    base = tmp_path.resolve()
    workspace = base / "root"
    (workspace / "src").mkdir(parents=True)
    for name in ("file.txt", "Cargo.toml"):
        (workspace / name).write_text("x\n")
    (base / "home").mkdir()
    return str(workspace)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: str(row["cmd"]))
def test_prism_matches_the_recorded_verdict(row: dict[str, Any], root: str) -> None:
    home = str(Path(root).parent / "home")
    verdict = analyze_command(row["cmd"], cwd=root, roots=[root], home=home)
    assert verdict.decision == row["prism"], verdict.reason
    if row["codex"] == "dangerous" or (row["codex"] == "ask" and not row.get("read_only")):
        assert verdict.decision != "allow", f"Prism is looser than Codex on {row['cmd']!r}"


def test_every_codex_auto_approval_is_allowed_or_explained() -> None:
    for row in ROWS:
        if row["codex"] == "auto" and row["prism"] != "allow":
            assert "Prism" in row["why"], row["cmd"]


def test_every_read_only_exception_says_why() -> None:
    for row in ROWS:
        if row.get("read_only"):
            assert row["codex"] == "ask" and row["why"].startswith("Prism allows:"), row["cmd"]


def test_the_data_covers_each_codex_verdict() -> None:
    kinds = {row["codex"] for row in ROWS}
    assert kinds == {"auto", "ask", "dangerous"}
    assert len(ROWS) >= 90
