"""Runs docs/examples/durable_agent.py: start (crashes while awaiting approval), approve from
another process, recover; the deploy runs exactly once, after the approval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("prism.dbos")

EXAMPLE = Path(__file__).with_name("durable_agent.py")


def step(command: str, directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), command, str(directory)],
        capture_output=True, text=True, timeout=90,
    )  # fmt: skip


def test_start_crash_approve_recover(tmp_path: Path) -> None:
    started = step("start", tmp_path)
    assert started.returncode == -9, started.stderr[-2000:]
    assert "awaiting approval" in started.stdout and "deploy ran" not in started.stdout
    approved = step("approve", tmp_path)
    assert approved.returncode == 0, approved.stderr[-2000:]
    assert "approval of t2: delivered" in approved.stdout
    recovered = step("recover", tmp_path)
    assert recovered.returncode == 0, recovered.stderr[-2000:]
    out = recovered.stdout
    assert out.count("deploy ran for main") == 1
    assert "tool check_tests" in out and "tool deploy" in out
    assert "run release-42 succeeded: main is tested and deployed" in out
