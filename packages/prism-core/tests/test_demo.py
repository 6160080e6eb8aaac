"""The README's demo runs on both backends: calls visibly overlap, then an exclusive turn."""

from __future__ import annotations

import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[3] / "scripts" / "demo.py"
SPAN = re.compile(r"^  (\w+#c\d+) +\|[ #]+\|  (\d\.\d+)-(\d\.\d+) s$", re.MULTILINE)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_demo_shows_overlap_then_an_exclusive_turn(backend: str) -> None:
    out = subprocess.run(
        [sys.executable, str(DEMO), "--backend", backend],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    turn_1, turn_2 = out.split("== turn 1 timeline")[1].split("== turn 2 timeline")
    turn_2 = turn_2.split("== transcript")[0]
    first = {name: (float(a), float(b)) for name, a, b in SPAN.findall(turn_1)}
    second = {name: (float(a), float(b)) for name, a, b in SPAN.findall(turn_2)}
    assert sorted(first) == ["news#c3", "weather#c1", "weather#c2"]
    assert max(start for start, _ in first.values()) < min(end for _, end in first.values())
    assert "peak in flight: 3 of 3" in turn_1
    spans = sorted(second.values())
    assert len(spans) == 3
    assert all(a[1] <= b[0] for a, b in pairwise(spans)), spans
    assert "peak in flight: 1 of 3" in turn_2
    assert "blocked   delete_everything#c4       permission_denied" in out
    assert "blocked   weather#c5                 invalid_arguments" in out
    assert out.count("tool:      [c") == 8
    assert "6 of 8 calls worked" in out
    assert "sk-demo" not in out
    assert "secret in ledger: no (redacted)" in out


def test_demo_uses_public_names_only() -> None:
    source = DEMO.read_text(encoding="utf-8")
    assert not re.search(r"prism\.\w+\._", source), "the demo imports a private module"
