"""docs/threats.md stays true: every row, its package, its registered check, real test files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prism.conformance import THREAT_MATRIX, ThreatRow, registered_checks

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "threats.md"
_ROW = re.compile(r"^\| +(\w+) \| (.+?) \| .+ \| `(_rows_\w+)\.(\w+)` \|$", re.MULTILINE)
_SECTION = re.compile(r"^## (prism-[\w-]+) ", re.MULTILINE)


def _rows_by_section() -> dict[str, tuple[str, str, str, str]]:
    """``{row id: (section package, scenario, module, function)}`` from the page's tables."""
    text = PAGE.read_text(encoding="utf-8")
    sections = [(m.start(), m.group(1)) for m in _SECTION.finditer(text)]
    found: dict[str, tuple[str, str, str, str]] = {}
    for match in _ROW.finditer(text):
        package = [name for start, name in sections if start < match.start()][-1]
        row_id, scenario, module, function = match.groups()
        assert row_id not in found, f"row {row_id} appears twice in {PAGE.name}"
        found[row_id] = (package, scenario, module, function)
    return found


def test_every_matrix_row_is_on_the_page_once_under_its_package() -> None:
    found = _rows_by_section()
    assert sorted(found) == sorted(row.id for row in THREAT_MATRIX)
    for row in THREAT_MATRIX:
        package, scenario, _, _ = found[row.id]
        assert package == row.package, f"row {row.id} is listed under {package}"
        assert scenario == row.scenario.replace("list_changed", "`list_changed`"), row.id


@pytest.mark.parametrize("row", THREAT_MATRIX, ids=lambda row: row.id)
def test_the_named_check_is_the_registered_one(row: ThreatRow) -> None:
    _, _, module, function = _rows_by_section()[row.id]
    check = registered_checks()[row.id]
    assert (check.__module__.rsplit(".", 1)[-1], check.__name__) == (module, function)


def test_every_test_file_the_page_names_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    named = 0
    for block in re.findall(r"`(packages/[\w-]+/tests/)`(.*?)(?:\n\n|\Z)", text, re.DOTALL):
        folder, names = block
        for name in re.findall(r"`(test_\w+\.py)`", names):
            assert (ROOT / folder / name).is_file(), f"{PAGE.name} names {folder}{name}"
            named += 1
    assert named >= 30, f"expected the deeper-test lists, found {named} file names"


def test_the_page_is_linked_from_the_entry_points() -> None:
    for where in ("docs/index.md", "conformance/README.md", "README.md"):
        assert "threats.md" in (ROOT / where).read_text(encoding="utf-8"), where
