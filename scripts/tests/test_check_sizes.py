"""scripts/check-sizes: no source module over 420 lines, no function over 60."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-sizes"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60
    )


def _module(root: Path, name: str, text: str) -> None:
    path = root / "packages" / "prism-x" / "src" / "prism" / "x" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines (its ``def`` included)."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}def {name}() -> int:\n{body}{indent}    return 0\n"


def test_a_module_over_420_lines_fails(tmp_path: Path) -> None:
    _module(tmp_path, "_ok.py", "x = 1\n" * 420)
    _module(tmp_path, "_big.py", "x = 1\n" * 421)
    run = _run(tmp_path)
    assert run.returncode == 1
    assert "_big.py:1: module of 421 lines (limit 420)" in run.stdout
    assert "_ok.py" not in run.stdout


def test_a_function_or_method_over_60_lines_fails(tmp_path: Path) -> None:
    method = _function("method", 61, indent="    ")
    _module(tmp_path, "_a.py", _function("fits", 60) + "\n\nclass C:\n" + method)
    run = _run(tmp_path)
    assert run.returncode == 1
    assert "_a.py:64: function method of 61 lines (limit 60)" in run.stdout
    assert "fits" not in run.stdout


def test_a_closure_is_measured_on_its_own(tmp_path: Path) -> None:
    """An outer function of 40 own lines around a closure of 50 passes; a closure of 61 fails."""
    outer = _function("outer", 40).replace("    return 0\n", _function("inner", 50, "    "))
    _module(tmp_path, "_a.py", outer + "    return 0\n")
    assert _run(tmp_path).returncode == 0
    outer = _function("outer", 10).replace("    return 0\n", _function("inner", 61, "    "))
    _module(tmp_path, "_b.py", outer + "    return 0\n")
    run = _run(tmp_path)
    assert run.returncode == 1
    assert "_b.py:10: function inner of 61 lines" in run.stdout
    assert "outer" not in run.stdout


def test_this_repository_has_none() -> None:
    run = _run(ROOT)
    assert run.returncode == 0, run.stdout
