"""Under pytest-xdist a test marked ``alone`` runs while no other worker runs a test (the root
conftest's lock), and the other tests still run side by side."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORK = """
import os, time
import pytest

def record(name):
    start = time.monotonic()
    time.sleep(0.3)  # the work whose overlap is measured
    with open(os.environ["SPANS"], "a") as f:
        f.write(f"{name} {start} {time.monotonic()}\\n")

@pytest.mark.parametrize("n", range(6))
def test_shared(n):
    record(f"shared{n}")

@pytest.mark.alone
@pytest.mark.parametrize("n", range(2))
def test_alone(n):
    record(f"alone{n}")
"""


def test_an_alone_test_overlaps_no_other_test_and_the_rest_run_in_parallel(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_work.py").write_text(WORK)
    spans = tmp_path / "spans"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-q", "-p",
         "no:randomly", "-o", "markers=alone: x", str(tmp_path / "test_work.py")],
        cwd=tmp_path, env={**os.environ, "SPANS": str(spans)},
        capture_output=True, text=True, timeout=100, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [line.split() for line in spans.read_text().splitlines()]
    ran = {name: (float(start), float(end)) for name, start, end in rows}
    assert len(ran) == 8

    def overlap(a: str, b: str) -> bool:
        return ran[a][0] < ran[b][1] and ran[b][0] < ran[a][1]

    alone = [name for name in ran if name.startswith("alone")]
    assert not [(a, b) for a in alone for b in ran if a != b and overlap(a, b)]
    shared = [name for name in ran if name.startswith("shared")]
    assert any(overlap(a, b) for a in shared for b in shared if a < b)  # two workers did run
