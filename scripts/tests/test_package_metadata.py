"""Every published distribution has the metadata a user checks before depending on it.

``scripts/release-check``'s ``check_project`` reads each project's pyproject.toml, README.md and
tests: classifiers, license, a README with an example and its prism-* ranges, ranges that are
exactly the release line CI tests, and tests that run the threat rows the package owns.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader(
        "release_check_metadata", str(ROOT / "scripts" / "release-check")
    )
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


release_check = _load()
PROJECTS = release_check.projects()
VERSIONS = {name: version for name, (version, _) in PROJECTS.items()}


def test_every_workspace_member_is_checked() -> None:
    members = {p.parent.name for p in ROOT.glob("packages/*/pyproject.toml")} | {"conformance"}
    assert {where.name for _, where in PROJECTS.values()} == members
    assert len(PROJECTS) == 11


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_the_project_has_full_metadata(name: str) -> None:
    assert release_check.check_project(name, PROJECTS[name][1], VERSIONS) == []


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_prism_ranges_admit_the_workspace_versions(name: str) -> None:
    """The lowest and highest prism-core a package allows is the release line CI tests."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((PROJECTS[name][1] / "pyproject.toml").read_text())["project"]
    for text in project["dependencies"]:
        requirement = Requirement(text)
        if requirement.name.startswith("prism-"):
            assert requirement.specifier.contains(VERSIONS[requirement.name]), text


def _copy(name: str, tmp_path: Path) -> Path:
    where = tmp_path / name
    shutil.copytree(PROJECTS[name][1], where, ignore=shutil.ignore_patterns("src", "__pycache__"))
    return where


def test_missing_classifiers_a_stale_range_and_no_example_are_reported(tmp_path: Path) -> None:
    where = _copy("prism-mcp", tmp_path)
    pyproject = where / "pyproject.toml"
    text = pyproject.read_text().replace('    "Development Status :: 3 - Alpha",\n', "")
    text = text.replace("Python :: 3.12", "Python :: 3.14")
    pyproject.write_text(text.replace('"prism-core>=0.1,<0.2"', '"prism-core>=0.1,<0.4"'))
    readme = where / "README.md"
    readme.write_text(readme.read_text().replace("```python", "```text"))
    problems = release_check.check_project("prism-mcp", where, VERSIONS)
    assert "prism-mcp: classifier 'Development Status :: 3 - Alpha' failed" in problems
    assert "prism-mcp: Python classifiers are the versions CI runs failed" in problems
    assert "prism-mcp: README shows an example failed" in problems
    assert "prism-mcp: README does not state the range `prism-core>=0.1,<0.4`" in problems
    assert any("is not exactly the release line CI tests" in p for p in problems)


def test_a_package_whose_tests_skip_its_rows_is_reported(tmp_path: Path) -> None:
    where = _copy("prism-jsonschema", tmp_path)
    (where / "tests" / "test_conformance.py").unlink()
    problems = release_check.check_project("prism-jsonschema", where, VERSIONS)
    assert problems == [
        "prism-jsonschema: tests/test_conformance.py does not run the prism-jsonschema rows"
    ]


def test_the_python_versions_claimed_are_the_ci_matrix() -> None:
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    matrix = re.search(r"^\s*python: \[(.*)\]\s*$", workflow, re.MULTILINE)
    assert matrix is not None, "ci.yml has no python matrix"
    assert tuple(v.strip(' "') for v in matrix[1].split(",")) == release_check.TESTED_PYTHONS
