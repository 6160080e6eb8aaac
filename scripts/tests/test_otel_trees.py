"""docs/otel.md shows the span trees scripts/otel_trees.py produces with the real frameworks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prism.core.testing import scaled

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "otel_trees.py"
PAGE = ROOT / "docs" / "otel.md"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=scaled(60),
    )  # fmt: skip


def test_the_docs_trees_are_the_scripts_output() -> None:
    done = _run("--check", PAGE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_stale_tree_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "otel.md"
    page.write_text(PAGE.read_text(encoding="utf-8").replace("[ERROR]", "[UNSET]"), "utf-8")
    done = _run("--check", page)
    assert done.returncode == 1
    assert "stale" in done.stdout
