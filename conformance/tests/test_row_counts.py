"""Every count and row range the docs state is the row table's, so none can go stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prism.conformance import THREAT_MATRIX

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "conformance" / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "packages").glob("*/README.md"),
    ]
)
NUMBERED = [int(r.id) for r in THREAT_MATRIX if r.id.isdigit()]
EXTENDED = [int(r.id[1:]) for r in THREAT_MATRIX if r.id.startswith("E")]
COUNT = re.compile(
    r"\b(?:all (\d+) rows|(\d+) threats|(\d+) scenarios|(\d+) rows of the threat matrix)",
    re.IGNORECASE,
)
NUMBERED_RANGE = re.compile(r"\brows 1[–-](\d+)(?=,? and E1[–-]| are the baseline)", re.IGNORECASE)
"""The whole baseline ("rows 1–16 and E1–E15"), not one package's share ("rows 1–3")."""
EXTENDED_RANGE = re.compile(r"\bE1[–-]E(\d+)\b")


def _claims(pattern: re.Pattern[str]) -> list[tuple[str, int, int]]:
    """(page, line, number) for each match of ``pattern`` in the docs."""
    found: list[tuple[str, int, int]] = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                value = next(g for g in match.groups() if g is not None)
                found.append((page.relative_to(ROOT).as_posix(), number, int(value)))
    return found


def test_the_table_is_numbered_without_gaps() -> None:
    assert list(range(1, len(NUMBERED) + 1)) == NUMBERED
    assert list(range(1, len(EXTENDED) + 1)) == EXTENDED


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (COUNT, len(THREAT_MATRIX)),
        (NUMBERED_RANGE, len(NUMBERED)),
        (EXTENDED_RANGE, len(EXTENDED)),
    ],
    ids=["row-count", "baseline-range", "extended-range"],
)
def test_every_stated_count_and_range_matches_the_row_table(
    pattern: re.Pattern[str], expected: int
) -> None:
    claims = _claims(pattern)
    assert claims, f"no page states {pattern.pattern}: the check would prove nothing"
    stale = [f"{page}:{line}: says {value}" for page, line, value in claims if value != expected]
    assert not stale, f"expected {expected}: " + "; ".join(stale)
