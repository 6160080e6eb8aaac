"""The pinned official MCP conformance suite, installed into a cache outside the repository.

Shared by the client and server conformance tests: ``scripts/mcp-conformance-setup.py`` installs
Node 22 and the suite on first use; the caller skips only when npm is unreachable (exit 3).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SETUP = ROOT / "scripts" / "mcp-conformance-setup.py"


def install_suite(suite: str = "stable") -> tuple[Path, Path]:
    """(node 22 binary, entry point of the ``stable`` or ``alpha`` suite); skips with the reason
    when npm is unreachable."""
    try:
        done = subprocess.run(
            [sys.executable, str(SETUP), "--timeout", "240", "--suite", suite],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("scripts/mcp-conformance-setup.py did not finish in 300 s")
    if done.returncode == 3:
        pytest.skip(f"npm registry unreachable, cannot install the MCP conformance suite: "
                    f"{done.stderr.strip()[-300:]}")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    root = Path(done.stdout.strip().splitlines()[-1])
    spec = importlib.util.spec_from_file_location("mcp_conformance_setup", SETUP)
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    node, entry = setup.paths(root)
    return Path(node), Path(entry)


def listed_scenarios(suite: tuple[Path, Path], part: str) -> tuple[str, ...]:
    """The scenario names the suite's ``list`` prints under ``part`` ("Server" or "Client")."""
    node, entry = suite
    listed = subprocess.run(
        [str(node), str(entry), "list"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    section = listed.split(f"{part} scenarios", 1)[1].split("scenarios (", 1)[0]
    return tuple(line.split()[1] for line in section.splitlines() if line.strip().startswith("- "))


def node_env(suite: tuple[Path, Path]) -> dict[str, str]:
    """The environment with the suite's Node first on ``PATH``."""
    return {**os.environ, "PATH": f"{suite[0].parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def failed_checks(out: Path) -> list[dict[str, Any]]:
    """Every FAILURE or WARNING check the suite wrote under ``out`` (none when it wrote none)."""
    checks: list[dict[str, Any]] = []
    for path in out.rglob("checks.json"):
        checks.extend(json.loads(path.read_text()))
    return [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]


def all_checks(out: Path) -> list[dict[str, Any]]:
    """Every check the suite wrote under ``out``."""
    checks: list[dict[str, Any]] = []
    for path in out.rglob("checks.json"):
        checks.extend(json.loads(path.read_text()))
    return checks
