"""The README's main-job demo runs on both backends and shows every gate at work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[3] / "scripts" / "demo.py"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_demo_prints_events_and_a_valid_transcript(backend: str) -> None:
    out = subprocess.run(
        [sys.executable, str(DEMO), "--backend", backend],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "blocked   delete_everything#c4       permission_denied" in out
    assert "blocked   weather#c5                 invalid_arguments" in out
    assert out.count("tool:      [c") == 5
    assert "3 of 5 calls worked" in out
    assert "sk-demo" not in out
    assert "secret in ledger: no (redacted)" in out
