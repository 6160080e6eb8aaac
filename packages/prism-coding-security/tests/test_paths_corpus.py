"""Every row of the path corpus, ``corpus/paths.jsonl``, loaded at run time."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security._paths import canonicalize_roots, check_path

from ._corpus import load_corpus

_LOOKALIKE = {"o": "\u043e", "a": "\u0430", "e": "\u0435", "p": "\u0440", "c": "\u0441"}


ROWS = load_corpus("paths")


@dataclass(frozen=True)
class Fixture:
    root: str
    outside: str
    home: str

    def fill(self, text: str) -> str:
        return (
            text.replace("{root_via_tmp}", "/tmp/.." + self.root)
            .replace("{root_homoglyph}", _homoglyph(self.root))
            .replace("{root_upper}", self.root.upper())
            .replace("{root_name}", os.path.basename(self.root))
            .replace("{root}", self.root)
            .replace("{outside}", self.outside)
        )


def _homoglyph(root: str) -> str:
    for index in range(len(root) - 1, -1, -1):
        if root[index] in _LOOKALIKE:
            return root[:index] + _LOOKALIKE[root[index]] + root[index + 1 :]
    raise AssertionError(f"no letter to swap in {root}")


@pytest.fixture
def fixture(tmp_path: Path) -> Fixture:
    real = tmp_path.resolve()
    root, outside, home = real / "root", real / "outside", real / "home"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "sub").mkdir()
    (outside / "ssl").mkdir(parents=True)
    (outside / "secret").write_text("s3cret\n")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key\n")
    return Fixture(str(root), str(outside), str(home))


def _apply_setup(fx: Fixture, setup: list[dict[str, str]]) -> None:
    for step in setup:
        if "symlink" in step:
            os.symlink(fx.fill(step["target"]), os.path.join(fx.root, fx.fill(step["symlink"])))
        elif "hardlink" in step:
            os.link(fx.fill(step["target"]), os.path.join(fx.root, fx.fill(step["hardlink"])))
        else:
            raise AssertionError(f"unknown setup step {step}")


def _decide(fx: Fixture, path: str, op: str, roots: tuple[str, ...]) -> str:
    reason = check_path(path, cwd=fx.root, roots=roots, mutating=op == "write", home=fx.home)
    return "allow" if reason is None else "deny"


def test_corpus_is_not_empty() -> None:
    assert len(ROWS) >= 30, f"expected the full path corpus, got {len(ROWS)} rows"


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r.get("harness") != "special"], ids=lambda r: str(r["id"])
)
def test_path_corpus_row(fixture: Fixture, row: dict[str, Any]) -> None:
    _apply_setup(fixture, row["setup"])
    decision = _decide(fixture, fixture.fill(row["path"]), row["op"], (fixture.root,))
    assert decision == row["expect"] or decision in row["also_ok"], (
        f"{row['id']}: got {decision}, expected {row['expect']} ({row['why']})"
    )
    if row["expect"] == "deny":
        assert decision != "allow", f"{row['id']} is a deny row but was allowed"


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r.get("harness") == "special"], ids=lambda r: str(r["id"])
)
def test_special_rows_are_known(row: dict[str, Any]) -> None:
    """A new special row needs a dedicated test; fail loudly instead of silently skipping it."""
    assert row["id"] in {"PATH046"}, f"special row {row['id']} has no dedicated test: {row['why']}"


def test_path046_root_configured_through_a_symlink(fixture: Fixture) -> None:
    row = next(r for r in ROWS if r["id"] == "PATH046")
    link = fixture.root + "-link"
    os.symlink(fixture.root, link)
    roots = canonicalize_roots([link])
    assert roots == (fixture.root,)
    decision = _decide(fixture, fixture.fill(row["path"]), row["op"], roots)
    assert decision == row["expect"] or decision in row["also_ok"]
    assert _decide(fixture, link + "/src/app.py", "read", roots) == "allow"
    assert _decide(fixture, link + "/../outside/secret", "read", roots) == "deny"
