"""scripts/bench/run_all.py runs benches in one sitting and writes one fragment per bench.

Real runs of the real runner in a subprocess: a quick run of the otel bench (its peers are in the
default dependency group), a run killed by its timeout, and refused command lines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "scripts" / "bench" / "run_all.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUNNER), *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_quick_run_of_one_bench_writes_its_fragment_with_command_machine_and_load(
    tmp_path: Path,
) -> None:
    out = tmp_path / "fragments"
    done = _run(out, "--quick", "--only", "otel")
    assert done.returncode == 0, done.stderr
    text = (out / "otel.md").read_text(encoding="utf-8")
    assert "Command: `uv run --group bench python scripts/bench/otel.py --quick` — ok" in text
    assert "Machine: " in text and " cores, " in text
    assert text.count("load average") >= 2  # uptime before and after, and the bench's header
    assert "| dispatch, no telemetry |" in text and "| dispatch + ToolTelemetry, SDK" in text
    assert "[otel](otel.md) | ok |" in (out / "index.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir()) == ["index.md", "otel.md"]  # no temp files


def test_bench_overrunning_its_timeout_is_killed_and_its_fragment_says_so(
    tmp_path: Path,
) -> None:
    done = _run(tmp_path, "--quick", "--only", "otel", "--timeout", "0.2")
    assert done.returncode == 1
    text = (tmp_path / "otel.md").read_text(encoding="utf-8")
    assert "**timed out** (killed)" in text
    assert "[otel](otel.md) | **failed** |" in (tmp_path / "index.md").read_text(encoding="utf-8")


def test_unknown_bench_is_refused_naming_it_and_the_known_ones(tmp_path: Path) -> None:
    done = _run(tmp_path, "--only", "otel", "no-such-bench")
    assert done.returncode == 2
    assert "unknown bench no-such-bench" in done.stderr and "dispatch" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me", encoding="utf-8")
    done = _run(target, "--only", "otel")
    assert done.returncode == 2 and "is not a directory" in done.stderr
    assert target.read_text(encoding="utf-8") == "keep me"
