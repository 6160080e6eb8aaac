"""The "depends on" column of docs/index.md matches every distribution's pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "docs" / "index.md"
PROJECTS = {
    path.parent.name: path.parent for path in sorted((ROOT / "packages").glob("*/pyproject.toml"))
} | {"prism-conformance": ROOT / "conformance"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def _name(requirement: str) -> str:
    """``"prism-core>=0.1,<0.2"`` -> ``"core"`` (the short form the index uses)."""
    match = _NAME.match(requirement.strip())
    assert match is not None, f"cannot read a name from {requirement!r}"
    return match.group(0).lower().replace("_", "-").removeprefix("prism-")


def _declared(distribution: str) -> dict[str, set[str]]:
    """``{"": required names, "<extra>": names}`` from the distribution's pyproject."""
    project = tomllib.loads((PROJECTS[distribution] / "pyproject.toml").read_text())["project"]
    declared = {"": {_name(r) for r in project.get("dependencies", [])}}
    for extra, requirements in project.get("optional-dependencies", {}).items():
        declared[extra] = {_name(r) for r in requirements}
    return declared


def _documented() -> dict[str, dict[str, set[str]]]:
    """``{distribution: {"": names, "<extra>": names}}`` from the index's package table."""
    found: dict[str, dict[str, set[str]]] = {}
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"`prism-[\w-]+`", cells[0]):
            continue
        parts = [part.strip() for part in cells[3].split(";")]
        required = set() if parts[0] == "nothing (stdlib only)" else _names(parts[0])
        extras = {"": required}
        for part in parts[1:]:
            match = re.fullmatch(r"extra `([\w-]+)`: (.+)", part)
            assert match is not None, f"cannot read {part!r} in the row of {cells[0]}"
            extras[match.group(1)] = _names(match.group(2))
        found[cells[0].strip("`")] = extras
    return found


def _names(text: str) -> set[str]:
    return {name.strip() for name in text.split(",") if name.strip()}


def test_the_index_lists_every_distribution() -> None:
    assert sorted(_documented()) == sorted(PROJECTS)


@pytest.mark.parametrize("distribution", sorted(PROJECTS))
def test_depends_on_matches_pyproject(distribution: str) -> None:
    documented = _documented()[distribution]
    declared = _declared(distribution)
    assert documented == declared, (
        f"docs/index.md says {distribution} depends on {documented}, "
        f"its pyproject.toml declares {declared}"
    )
