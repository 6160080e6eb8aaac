"""The prism-conformance CLI: table, summary, exit codes, --rows, --json, --require, progress."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from prism.conformance import THREAT_MATRIX, ConformanceSubjects, _subjects, run_conformance
from prism.conformance._cli import PACKAGES, THREATS_URL, main, render_table
from prism.conformance._matrix import describe_rows
from prism.core import dispatch_tool_calls_in_order
from prism.core.testing import TIME_FACTOR_ENV

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$", re.MULTILINE)


class AllowAll:
    def check(self, request: Any) -> bool:
        return True


def test_passing_rows_exit_zero_with_a_table_and_the_summary_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--rows", "4,7", "--backend", "asyncio"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["Row", "Package", "Scenario", "asyncio"]
    row4 = next(line for line in lines if line.startswith("4 "))
    assert "prism-core" in row4
    assert "Prototype-pollution" in row4
    assert "pass" in row4
    assert lines[-1] == "2 passed, 0 failed, 0 skipped"
    assert "\033[" not in out  # not a terminal: no colour
    assert "[2/2] row 7 on asyncio: passed" in err  # progress on stderr


def test_a_failing_row_exits_one_and_explains_itself(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = ConformanceSubjects(permission_factory=lambda names: AllowAll())
    monkeypatch.setattr(_subjects, "default_subjects", lambda: broken)
    assert main(["--rows", "4,7"]) == 1
    out = capsys.readouterr().out
    assert SUMMARY.search(out) is not None
    assert out.splitlines()[-1] == "2 passed, 2 failed, 0 skipped"
    assert "Failures:" in out
    assert "7 [trio] prism-core: the permission policy denies tool 'danger'" in out


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["--rows", "4,99"], "unknown threat row(s) 99"),
        (["--rows", ","], "no threat rows selected"),
        (["--backend", "curio"], "invalid choice: 'curio'"),
        (["--timeout", "0"], "--timeout must be in (0, 3600]"),
        (["--timeout", "soon"], "invalid float value"),
        (["--json", "/nonexistent-dir/report.json"], "does not exist"),
        (["--no-such-flag"], "unrecognized arguments"),
        (["--time-factor", "0"], "--time-factor must be a finite number from 1 to 100"),
        (["--time-factor", "-1"], "--time-factor must be a finite number from 1 to 100"),
        (["--time-factor", "nan"], "--time-factor must be a finite number from 1 to 100"),
        (["--time-factor", "abc"], "got 'abc'"),
        (["--package", "prism-nope"], "unknown distribution 'prism-nope'"),
        (["--package", "core"], "rows belong to: prism-core, prism-jsonschema"),
        (["--package", "prism-mcp", "--rows", "4"], "has no row among --rows 4"),
        (["--req", "4"], "unrecognized arguments: --req 4"),
        (["--fail-on"], "unrecognized arguments: --fail-on"),
    ],
)
def test_bad_arguments_exit_two(
    argv: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert complaint in capsys.readouterr().err


def test_a_bad_time_factor_variable_exits_two_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIME_FACTOR_ENV, "0")
    with pytest.raises(SystemExit) as info:
        main(["--rows", "4"])
    assert info.value.code == 2
    assert f"{TIME_FACTOR_ENV} must be a finite number from 1 to 100 (" in (capsys.readouterr().err)


def test_time_factor_gives_a_slow_subject_more_time(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio

    async def slow(calls: Any, **options: Any) -> Any:
        await anyio.sleep(0.4)
        return await dispatch_tool_calls_in_order(calls, **options)

    slow_subjects = ConformanceSubjects(dispatch_batch=slow)
    monkeypatch.setattr(_subjects, "default_subjects", lambda: slow_subjects)
    monkeypatch.setenv(TIME_FACTOR_ENV, "1")  # restored after the test
    argv = ["--rows", "7", "--backend", "asyncio", "--timeout", "0.2"]
    assert main(argv) == 1
    assert "did not finish within 0.2 s" in capsys.readouterr().out
    assert main([*argv, "--time-factor", "3"]) == 0


def test_json_report_is_written_with_its_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.json"
    assert main(["--rows", "5,E1", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["schema"] == "prism-conformance-report/1"
    assert data["backends"] == ["asyncio", "trio"]
    assert [(r["row"], r["backend"]) for r in data["results"]] == [
        ("5", "asyncio"), ("5", "trio"), ("E1", "asyncio"), ("E1", "trio"),
    ]  # fmt: skip
    counts = {
        s: sum(r["status"] == s for r in data["results"]) for s in ("passed", "failed", "skipped")
    }
    assert data["summary"] == {**counts, "total": 4}
    assert all(r["status"] in ("passed", "failed", "skipped") for r in data["results"])
    assert all(isinstance(r["duration_seconds"], float) for r in data["results"])
    assert capsys.readouterr().out.splitlines()[-1].endswith("skipped")


def test_json_dash_prints_only_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rows", "16", "--backend", "trio", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["passed"] == 1


def test_package_runs_only_the_rows_of_that_distribution(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--package", "prism-core", "--backend", "asyncio"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = lines[2 : lines.index("")]
    ran = [line.split()[0] for line in table]
    assert ran == [r.id for r in THREAT_MATRIX if r.package == "prism-core"]
    assert lines[-1] == f"{len(ran)} passed, 0 failed, 0 skipped"


def test_package_is_repeatable_and_combines_with_rows(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--package", "prism-core", "--package", "prism-jsonschema", "--rows", "1,2,4,8,E7"]
    assert main([*argv, "--backend", "trio", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["row"] for r in report["results"]] == ["1", "2", "4", "E7"]


def test_package_names_every_distribution_that_owns_rows() -> None:
    assert set(PACKAGES) == {row.package for row in THREAT_MATRIX}


def test_help_links_the_threat_matrix_page(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping inside the URL
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert THREATS_URL in out
    assert "--package NAME" in out


def test_list_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 36
    assert out[0].split()[:2] == ["1", "prism-jsonschema"]


def test_colour_marks_statuses_when_enabled() -> None:
    report = run_conformance(ConformanceSubjects(), rows="4,9", backends=("asyncio",))
    coloured = render_table(report, colour=True)
    assert "\033[32mpass" in coloured
    assert "\033[33mskip" in coloured
    assert "\033[" not in render_table(report, colour=False)


def test_skip_reasons_are_grouped_per_reason(capsys: pytest.CaptureFixture[str]) -> None:
    no_adapters = ConformanceSubjects()  # adapter subjects left None: their rows skip
    report = run_conformance(no_adapters, rows="8,9,10", backends=("asyncio", "trio"))
    table = render_table(report)
    reasons = {r.message for r in report.results}
    assert len(reasons) == 1
    assert f"  8, 9, 10: {reasons.pop()}" in table


def test_the_console_script_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "prism-conformance"
    done = subprocess.run(
        [str(script), "--rows", "4", "--backend", "trio"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "1 passed, 0 failed, 0 skipped"
    module = subprocess.run(
        [sys.executable, "-m", "prism.conformance", "--rows", "99"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert module.returncode == 2


def _no_adapters(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host with no MCP subjects: rows 8-10 skip, as a host without a shell skips 11-14."""
    monkeypatch.setattr(_subjects, "default_subjects", lambda: ConformanceSubjects())


def test_a_run_where_everything_skipped_says_so_loudly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_adapters(monkeypatch)
    assert main(["--rows", "8,9", "--backend", "asyncio"]) == 0
    out = capsys.readouterr().out
    assert "0 passed, 0 failed, 2 skipped" in out
    assert out.splitlines()[-1].startswith("prism-conformance: NOTHING RAN: all 2 selected")


def test_a_skipped_required_row_exits_one_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_adapters(monkeypatch)
    assert main(["--rows", "4", "--require", "8", "--backend", "asyncio"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^8 +prism-mcp ", out, re.MULTILINE)  # --require adds the row
    assert "1 passed, 0 failed, 1 skipped" in out
    assert out.splitlines()[-1] == (
        "prism-conformance: FAILED (--require): skipped, so not shown to hold: 8[asyncio]"
    )
    assert "NOTHING RAN" not in out


def test_required_rows_that_ran_keep_exit_zero(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_adapters(monkeypatch)
    assert main(["--rows", "4,8", "--require", "4", "--require", "7", "--backend", "trio"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "2 passed, 0 failed, 1 skipped"


def test_fail_on_skip_fails_any_skip(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_adapters(monkeypatch)
    assert main(["--rows", "4,8", "--backend", "asyncio"]) == 0
    capsys.readouterr()
    assert main(["--rows", "4,8", "--backend", "asyncio", "--fail-on-skip"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1].endswith(
        "(--fail-on-skip): skipped, so not shown to hold: 8[asyncio]"
    )


def test_json_on_stdout_keeps_the_loud_line_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_adapters(monkeypatch)
    assert main(["--rows", "8", "--backend", "asyncio", "--json", "-", "--require", "8"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["summary"]["skipped"] == 1
    assert "NOTHING RAN" in err
    assert "FAILED (--require)" in err


def test_require_names_an_unknown_row(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--require", "4,Z1"])
    assert exit_info.value.code == 2
    assert "--require: unknown threat row(s) Z1" in capsys.readouterr().err


def test_version_names_the_conformance_and_core_versions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    expected = (
        f"prism-conformance {metadata.version('prism-conformance')} "
        f"(prism-core {metadata.version('prism-core')})"
    )
    assert capsys.readouterr().out.strip() == expected


def test_help_counts_and_ranges_come_from_the_row_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    numbered = [r.id for r in THREAT_MATRIX if r.id.isdigit()]
    extended = [r.id for r in THREAT_MATRIX if r.id.startswith("E")]
    expected = f"rows 1–{numbered[-1]} and E1–{extended[-1]}, {len(THREAT_MATRIX)} rows"
    assert expected in text
    assert describe_rows() in text


def test_describe_rows_collapses_runs_into_ranges() -> None:
    by_id = {r.id: r for r in THREAT_MATRIX}
    assert describe_rows((by_id["4"],)) == "row 4"
    assert describe_rows((by_id["1"], by_id["2"], by_id["3"])) == "rows 1–3"
    picked = (by_id["1"], by_id["5"], by_id["6"], by_id["E2"])
    assert describe_rows(picked) == "rows 1, 5–6 and E2"
