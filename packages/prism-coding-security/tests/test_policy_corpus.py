"""The command corpus through the full policy (``corpus/commands.jsonl``, loaded at run time).

A decision is read from the policy's behaviour: allowed without asking = allow, the approval
callback consulted = needs-approval, denied without asking = deny.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security import CodingApprovalPolicy

from ._corpus import load_corpus
from ._policy_calls import decide, shell

pytestmark = pytest.mark.anyio

_CACHED = re.compile(r"cache holds (?:exact|prefix) '([^']+)'")


ROWS = load_corpus("commands")


class Host:
    """Approves exactly what ``approving`` says and records every request."""

    def __init__(self) -> None:
        self.approving = False
        self.asked: list[str | None] = []

    def __call__(self, request: Any) -> bool:
        self.asked.append(request.action.command)
        return self.approving


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    real = tmp_path.resolve()
    (real / "home").mkdir()
    monkeypatch.setenv("HOME", str(real / "home"))
    workspace = real / "root"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('x')\n")
    (workspace / "docs").mkdir()
    return str(workspace)


async def classify(policy: Any, host: Host, root: str, command: str) -> str:
    before = len(host.asked)
    outcome = await decide(policy, shell(root, command, session_id="s1", run_id="r1"))
    if len(host.asked) > before:
        return "needs-approval"
    return "allow" if outcome.allowed else "deny"


def _check(row: dict[str, Any], decision: str) -> None:
    assert decision == row["expect"] or decision in row["also_ok"], (
        f"{row['id']} {row['cmd']!r}: got {decision}, expected {row['expect']} ({row['why']})"
    )
    if row["expect"] in ("deny", "needs-approval"):
        assert decision != "allow", f"{row['id']} must never be allowed"


def _of(category: str) -> list[dict[str, Any]]:
    return [row for row in ROWS if row["cat"] == category]


@pytest.mark.parametrize("row", _of("readonly-mode"), ids=lambda r: str(r["id"]))
async def test_readonly_rows(root: str, row: dict[str, Any]) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, read_only=True)
    decision = await classify(policy, host, root, row["cmd"])
    assert decision != "needs-approval", "read-only mode must never ask"
    _check(row, decision)


@pytest.mark.parametrize("row", _of("approval-cache"), ids=lambda r: str(r["id"]))
async def test_approval_cache_rows(root: str, row: dict[str, Any]) -> None:
    cached = _CACHED.search(row["why"])
    assert cached is not None, f"{row['id']}: cannot tell what was approved from {row['why']!r}"
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host, approval_cache="session")
    host.approving = True
    primed = await classify(policy, host, root, cached.group(1))
    assert primed == "needs-approval", f"priming {cached.group(1)!r} should have asked"
    assert await classify(policy, host, root, cached.group(1)) == "allow", "cache not used"
    host.approving = False
    _check(row, await classify(policy, host, root, row["cmd"]))


@pytest.mark.parametrize(
    "row",
    [r for r in ROWS if r["cat"] not in ("readonly-mode", "approval-cache")],
    ids=lambda r: str(r["id"]),
)
async def test_every_row_through_the_policy(root: str, row: dict[str, Any]) -> None:
    host = Host()
    policy = CodingApprovalPolicy(roots=[root], approve=host)
    _check(row, await classify(policy, host, root, row["cmd"]))


def test_corpus_has_the_policy_categories() -> None:
    assert len(_of("readonly-mode")) >= 3
    assert len(_of("approval-cache")) >= 3
