"""run_conformance / run_row: statuses, deadlines, skips, and the report."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.conformance import (
    THREAT_MATRIX,
    ConformanceSubjects,
    RowSkippedError,
    RunProgress,
    _runner,
    _subjects,
    conformance_row,
    default_subjects,
    require,
    run_conformance,
    run_row,
)
from prism.core import dispatch_tool_calls_in_order
from prism.core.testing import TIME_FACTOR_ENV, scaled

CORE_ROWS = ["4", "5", "6", "7", "16", "E1", "E2", "E12"]


def _only(row: str, check: Any) -> tuple[dict[str, Any], dict[str, str]]:
    return {row: check}, {}


def test_core_rows_pass_on_both_backends_and_adapter_rows_are_never_passed() -> None:
    report = run_conformance(ConformanceSubjects(), rows=["1", *CORE_ROWS, "E3"])
    by = {(r.row.id, r.backend): r for r in report.results}
    for row in CORE_ROWS:
        for backend in ("asyncio", "trio"):
            assert by[row, backend].status == "passed", by[row, backend].message
    assert report.failed == 0
    assert report.ok
    assert report.passed == 2 * len(CORE_ROWS)
    assert report.summary() == f"{report.passed} passed, 0 failed, {report.skipped} skipped"
    for row in ("1", "E3"):  # adapter subjects are None here: skipped with a reason
        assert by[row, "asyncio"].status == "skipped"
        assert by[row, "asyncio"].message


def test_every_row_is_reported_in_matrix_order_with_a_duration() -> None:
    report = run_conformance(backends=("asyncio",), rows="e12,4")
    assert [r.row.id for r in report.results] == ["4", "E12"]
    assert all(r.duration_seconds > 0 for r in report.results)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": "4,99,X1"}, "unknown threat row(s) 99, X1"),
        ({"rows": ""}, "no threat rows selected"),
        ({"backends": ("curio",)}, "backends must be a non-empty subset"),
        ({"backends": ()}, "backends must be a non-empty subset"),
        ({"timeout_seconds": 0}, "timeout_seconds must be a finite number of seconds above 0"),
        ({"timeout_seconds": float("inf")}, "and at most 3600 (hard cap), got inf"),
        ({"timeout_seconds": True}, "timeout_seconds must be a finite number of seconds"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_problem(
    kwargs: dict[str, Any], message: str
) -> None:
    wrong_type = kwargs.get("timeout_seconds") is True  # a wrong type is a TypeError
    with pytest.raises(TypeError if wrong_type else ValueError) as info:
        run_conformance(**kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_hung_subject_fails_the_row_at_its_deadline(backend: str) -> None:
    async def hang(calls: Any, **options: Any) -> Any:
        await anyio.sleep_forever()

    began = time.monotonic()
    result = run_row(
        "7", ConformanceSubjects(dispatch_batch=hang), backend=backend, timeout_seconds=0.3
    )
    assert time.monotonic() - began < scaled(5)
    assert result.status == "failed"
    assert result.message is not None
    assert f"did not finish within {scaled(0.3):g} s on {backend}" in result.message


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_time_factor_multiplies_the_row_deadline(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def slow(calls: Any, **options: Any) -> Any:
        await anyio.sleep(0.4)  # a correct subject on a slow machine
        return await dispatch_tool_calls_in_order(calls, **options)

    subjects = ConformanceSubjects(dispatch_batch=slow)
    monkeypatch.setenv(TIME_FACTOR_ENV, "1")
    quick = run_row("7", subjects, backend=backend, timeout_seconds=0.2)
    assert quick.message is not None
    assert f"did not finish within 0.2 s on {backend}" in quick.message
    monkeypatch.setenv(TIME_FACTOR_ENV, "3")
    slow_ci = run_row("7", subjects, backend=backend, timeout_seconds=0.2)
    assert slow_ci.status == "passed", slow_ci.message

    async def hang(calls: Any, **options: Any) -> Any:
        await anyio.sleep_forever()

    hung = run_row(
        "7", ConformanceSubjects(dispatch_batch=hang), backend=backend, timeout_seconds=0.2
    )
    assert hung.message is not None
    assert f"did not finish within {0.2 * 3:g} s on {backend}" in hung.message


@pytest.mark.parametrize("raw", ["0", "-1", "nan", "abc"])
def test_a_bad_time_factor_is_refused_before_any_row_runs(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIME_FACTOR_ENV, raw)
    with pytest.raises(ValueError, match=f"{TIME_FACTOR_ENV} must be a finite number from 1"):
        run_conformance(rows="7", backends=["asyncio"])


def test_a_loop_blocking_subject_is_abandoned_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_runner, "_CANCEL_GRACE_SECONDS", 0.3)

    async def block(calls: Any, **options: Any) -> Any:
        time.sleep(scaled(1.5))  # blocks the event loop: cancellation cannot land
        return await dispatch_tool_calls_in_order(calls, **options)

    began = time.monotonic()
    result = run_row(
        "7", ConformanceSubjects(dispatch_batch=block), backend="asyncio", timeout_seconds=0.2
    )
    assert time.monotonic() - began < scaled(1.4)
    assert result.status == "failed"
    assert result.message is not None
    assert "its thread was abandoned" in result.message


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_outcomes_are_classified(backend: str) -> None:
    async def skip(subjects: ConformanceSubjects) -> None:
        require(subjects.mcp_connect, "an MCP bridge (prism-mcp)")

    async def missing_module(subjects: ConformanceSubjects) -> None:
        import prism.not_a_real_package  # type: ignore[import-not-found]  # noqa: F401

    async def skip_group(subjects: ConformanceSubjects) -> None:
        raise ExceptionGroup("both", [RowSkippedError("no sandbox"), RowSkippedError("no sandbox")])

    async def assertion_in_group(subjects: ConformanceSubjects) -> None:
        raise ExceptionGroup("mixed", [RowSkippedError("x"), AssertionError("leaked the secret")])

    async def crash(subjects: ConformanceSubjects) -> None:
        raise TypeError("subject returned a list")

    async def bare_assert(subjects: ConformanceSubjects) -> None:
        raise AssertionError

    cases = {
        skip: ("skipped", "an MCP bridge (prism-mcp) is not available"),
        missing_module: ("skipped", "prism.not_a_real_package is not installed"),
        skip_group: ("skipped", "no sandbox"),
        assertion_in_group: ("failed", "leaked the secret"),
        crash: ("failed", "TypeError: subject returned a list (at "),
        bare_assert: ("failed", "assertion failed (at "),
    }
    for check, (status, text) in cases.items():
        result = run_row("9", ConformanceSubjects(), backend=backend, checks=_only("9", check))
        assert (result.status, check.__name__) == (status, check.__name__)
        assert result.message is not None
        assert text in result.message


def test_a_row_without_a_check_is_skipped_never_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_row("9", ConformanceSubjects(), checks=({}, {}))
    assert result.status == "skipped"
    monkeypatch.setattr(_runner, "_distribution_installed", lambda package: True)
    assert run_row("9", checks=({}, {})).message == "not implemented yet (no check registered)"
    monkeypatch.setattr(_runner, "_distribution_installed", lambda package: False)
    assert run_row("9", checks=({}, {})).message == "prism-mcp is not installed"


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` uninstalled for this test (``None`` in sys.modules: not importable)."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize(
    ("hidden", "rows", "reason"),
    [
        (("prism.coding_tools",), "15,E3,E4,E5,E6", "prism-coding-tools is not installed"),
        (("prism.coding_tools", "anyio"), "15,E3", "prism-coding-tools is not installed"),
        (("prism.coding_tools",), "11,12,13,14,E10,E11", "prism-coding-tools is not installed"),
        (
            ("prism.coding_security",),
            "11,12,13,14,E10,E11",
            "prism-coding-security is not installed",
        ),
        (("prism.mcp", "mcp"), "8,9,10,E8,E9", "prism-mcp is not installed"),
        (("prism.jsonschema",), "1,2,3,E7", "prism-jsonschema is not installed"),
    ],
)
def test_a_missing_distribution_is_the_one_skip_reason(
    monkeypatch: pytest.MonkeyPatch, hidden: tuple[str, ...], rows: str, reason: str
) -> None:
    """Skips name the absent distribution the same way, never a dependency or a subject."""
    _hide(monkeypatch, *hidden)
    report = run_conformance(rows=rows, backends=("asyncio", "trio"))
    assert {(r.status, r.message) for r in report.results} == {("skipped", reason)}


def test_a_subject_left_out_on_purpose_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_row("15", ConformanceSubjects(), backend="asyncio")
    assert result.status == "skipped"
    assert result.message is not None
    assert "is not available (its subject is None)" in result.message


def test_an_installed_but_broken_package_fails_its_rows_instead_of_skipping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        _runner, "_broken_install", lambda package: f"{package} is installed but fails to import"
    )

    async def skip(subjects: ConformanceSubjects) -> None:
        require(subjects.mcp_connect, "an MCP bridge (prism-mcp)")

    for checks in (_only("9", skip), ({}, {})):
        result = run_row("9", ConformanceSubjects(), checks=checks)
        assert result.status == "failed"
        assert result.message == "prism-mcp is installed but fails to import"


def test_a_row_module_that_fails_to_import_fails_its_package_rows() -> None:
    errors = {"prism-mcp": "row module _rows_mcp failed to import: SyntaxError: x"}
    result = run_row("9", ConformanceSubjects(), checks=({}, errors))
    assert result.status == "failed"
    assert result.message == errors["prism-mcp"]


def test_trio_rows_are_skipped_when_trio_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_runner, "_trio_available", lambda: False)
    report = run_conformance(rows="4")
    assert report.result("4", "asyncio").status == "passed"
    trio = report.result("4", "trio")
    assert (trio.status, trio.message) == ("skipped", "trio is not installed (pip install trio)")


def test_progress_is_reported_before_and_after_each_row() -> None:
    seen: list[RunProgress] = []
    run_conformance(rows="4,7", progress=seen.append)
    assert [(p.index, p.row.id, p.backend, p.result is None) for p in seen] == [
        (0, "4", "asyncio", True), (1, "4", "asyncio", False),
        (1, "4", "trio", True), (2, "4", "trio", False),
        (2, "7", "asyncio", True), (3, "7", "asyncio", False),
        (3, "7", "trio", True), (4, "7", "trio", False),
    ]  # fmt: skip
    assert all(p.total == 4 for p in seen)


def test_report_json_has_a_stable_schema() -> None:
    report = run_conformance(ConformanceSubjects(), rows="4,9", backends=("asyncio",))
    data = json.loads(report.to_json())
    assert data["schema"] == "prism-conformance-report/1"
    assert data["ok"] is True
    assert data["summary"] == {"passed": 1, "failed": 0, "skipped": 1, "total": 2}
    assert data["backends"] == ["asyncio"]
    assert data["environment"]["distributions"]["prism-core"]
    first = data["results"][0]
    assert set(first) == {
        "row", "package", "scenario", "backend", "status", "message", "duration_seconds"
    }  # fmt: skip
    assert (first["row"], first["package"], first["status"]) == ("4", "prism-core", "passed")
    assert data["results"][1]["status"] == "skipped"
    assert data["results"][1]["message"]


def test_report_lookup_names_unknown_results() -> None:
    report = run_conformance(rows="4", backends=("asyncio",))
    with pytest.raises(KeyError, match="row 4 was not run on 'trio'"):
        report.result("4", "trio")


def test_registering_a_row_twice_or_with_a_bad_timeout_is_refused() -> None:
    with pytest.raises(ValueError, match="already has a check"):
        conformance_row("4")(lambda subjects: None)  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match=r"at most 3600 \(hard cap\), got 3601"):
        conformance_row("9", timeout_seconds=3601)
    with pytest.raises(KeyError, match="unknown threat row 'Z9'"):
        conformance_row("Z9")


def test_a_row_module_imported_anew_replaces_its_own_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from prism.conformance._registry import registered_checks

    before = registered_checks()["5"]
    monkeypatch.delitem(sys.modules, before.__module__)  # as pytester's snapshot restore does
    importlib.import_module(before.__module__)
    after = registered_checks()["5"]
    assert after is not before
    assert after.__qualname__ == before.__qualname__


def test_matrix_has_every_threat_row() -> None:
    ids = [row.id for row in THREAT_MATRIX]
    assert ids == [str(i) for i in range(1, 17)] + [f"E{i}" for i in range(1, 21)]


def test_default_subjects_leave_missing_adapters_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_subjects, "_installed", lambda module: False)
    subjects = default_subjects()
    assert subjects.mcp_connect is None
    assert subjects.coding_tools_factory is None
    assert subjects.json_schema_validator_factory is None
    assert subjects.sandbox_factory is None
    assert subjects.durable_agent_factory is None
    assert subjects.dispatch is not None
    assert subjects.permission_factory is not None


@pytest.mark.anyio
async def test_rows_can_be_awaited_directly_inside_an_anyio_test() -> None:
    from prism.conformance import registered_checks

    with anyio.fail_after(scaled(10)):
        await registered_checks()["7"](ConformanceSubjects())


def test_broken_install_names_the_import_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "prism_broken_fixture.py").write_text("raise RuntimeError('half-installed')\n")
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.setattr(_runner, "_module_of", lambda package: "prism_broken_fixture")
    assert _runner._broken_install("prism-mcp") == (
        "prism-mcp is installed but fails to import: RuntimeError: half-installed"
    )
    monkeypatch.setattr(_runner, "_module_of", lambda package: "prism_absent_fixture")
    assert _runner._broken_install("prism-mcp") is None
