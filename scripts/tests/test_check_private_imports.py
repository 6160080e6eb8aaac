"""scripts/check-private-imports: no package's source imports another package's private module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-private-imports"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60
    )


def _module(root: Path, package: str, name: str, text: str) -> None:
    path = root / "packages" / f"prism-{package}" / "src" / "prism" / package / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_an_import_of_another_packages_private_module_fails(tmp_path: Path) -> None:
    _module(tmp_path, "mcp", "_a.py", "from prism.core._backend import sleep\n")
    _module(tmp_path, "mcp", "_b.py", "import prism.core._render\n")
    run = _run(tmp_path)
    assert run.returncode == 1
    assert "_a.py:1: prism.core._backend" in run.stdout
    assert "_b.py:1: prism.core._render" in run.stdout


def test_own_private_modules_and_public_names_pass(tmp_path: Path) -> None:
    _module(tmp_path, "mcp", "_a.py", "from prism.mcp._b import x\nfrom prism.core import T\n")
    _module(tmp_path, "mcp", "_c.py", "from prism.core.lowlevel import sleep\nfrom . import _b\n")
    assert _run(tmp_path).returncode == 0


def test_this_repository_has_none() -> None:
    run = _run(ROOT)
    assert run.returncode == 0, run.stdout
