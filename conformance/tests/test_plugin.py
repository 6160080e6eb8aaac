"""The pytest plugin, run on a sample downstream project (``downstream/``) with pytester."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SAMPLE = Path(__file__).parent / "downstream"

DOCS = Path(__file__).parents[2] / "docs" / "conformance.md"
DENY_LINE = 'if request.kind == "tool" and request.target in self.blocked_tools:'


def sample(pytester: pytest.Pytester, *, broken: bool = False, conftest_dir: str = ".") -> None:
    """Copy the downstream sample into the pytester directory (``broken``: allow-all policy)."""
    conftest = (SAMPLE / "conftest.py").read_text()
    assert DENY_LINE in conftest
    if broken:
        conftest = conftest.replace(DENY_LINE, "if False:  # broken on purpose")
    where = pytester.path / conftest_dir
    where.mkdir(exist_ok=True)
    (where / "conftest.py").write_text(conftest)
    (where / "test_app.py").write_text((SAMPLE / "test_app.py").read_text())


def test_the_docs_show_the_sample_conftest_verbatim() -> None:
    assert (SAMPLE / "conftest.py").read_text() in DOCS.read_text()


def test_rows_run_against_the_downstream_override(pytester: pytest.Pytester) -> None:
    sample(pytester)
    result = pytester.runpytest("--prism-conformance", "--prism-conformance-rows", "4,7,E12", "-v")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(["*conftest.py::threat_row?7-trio? PASSED*"])
    result.stdout.fnmatch_lines(["*test_app.py::test_the_app_works PASSED*"])


def test_a_broken_downstream_policy_fails_its_row(pytester: pytest.Pytester) -> None:
    sample(pytester, broken=True)
    result = pytester.runpytest(
        "--prism-conformance", "--prism-conformance-rows", "4,7", "-k", "threat_row"
    )
    result.assert_outcomes(passed=2, failed=2, deselected=1)
    result.stdout.fnmatch_lines(
        ["*threat row 7 (Permission denied inside a parallel batch) on asyncio:*'danger'*"]
    )


def test_without_the_flag_no_rows_are_added(pytester: pytest.Pytester) -> None:
    sample(pytester)
    pytester.runpytest().assert_outcomes(passed=1)


def test_without_an_override_the_default_subjects_are_used(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_nothing="def test_ok():\n    pass\n")
    result = pytester.runpytest("--prism-conformance", "--prism-conformance-rows", "4", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*prism-conformance::threat_row?4-asyncio? PASSED*",
            "*prism-conformance::threat_row?4-trio? PASSED*",
        ]
    )


def test_an_override_in_a_subdirectory_applies_when_one_file_is_selected(
    pytester: pytest.Pytester,
) -> None:
    sample(pytester, broken=True, conftest_dir="tests")
    result = pytester.runpytest(
        "--prism-conformance", "--prism-conformance-rows", "7", "tests/test_app.py"
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["FAILED tests/conftest.py::threat_row?7-trio? - *"])


def test_backend_selection(pytester: pytest.Pytester) -> None:
    sample(pytester)
    result = pytester.runpytest(
        "--prism-conformance",
        "--prism-conformance-rows",
        "5",
        "--prism-conformance-backend",
        "trio",
        "-v",
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*threat_row?5-trio? PASSED*"])


def test_unknown_rows_are_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--prism-conformance", "--prism-conformance-rows", "4,X9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--prism-conformance-rows: unknown threat row(s) X9*"])


def test_a_fixture_of_the_wrong_type_fails_clearly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef prism_conformance_subjects():\n    return {}\n"
    )
    result = pytester.runpytest("--prism-conformance", "--prism-conformance-rows", "4")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*fixture *: returned dict, not a ConformanceSubjects*"])


def test_make_conformance_tests_runs_a_packages_rows(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_rows=(
            "from prism.conformance import make_conformance_tests\n\n"
            'test_conformance = make_conformance_tests(package="prism-core")\n'
        )
    )
    # The rows themselves run once per session, in prism-core's own test_conformance.py:
    # here collecting them proves the selection, and one row proves they run.
    collected = pytester.runpytest("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["test_rows.py::test_conformance[[]E12-trio[]]", "16 tests*"])
    narrowed = pytester.runpytest(
        "--prism-conformance-rows", "4,9", "--prism-conformance-backend", "asyncio"
    )
    narrowed.assert_outcomes(passed=1, deselected=15)


def test_make_conformance_tests_refuses_unknown_packages() -> None:
    from prism.conformance import make_conformance_tests

    with pytest.raises(
        ValueError, match=r"^make_conformance_tests\.package must be one of .*, got 'prism-foo'$"
    ):
        make_conformance_tests(package="prism-foo")


def test_make_conformance_tests_leaves_out_excluded_rows(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_rows=(
            "from prism.conformance import make_conformance_tests\n\n"
            "test_conformance = make_conformance_tests(\n"
            '    package="prism-core", exclude=("16", "e12"), backends=("asyncio",)\n'
            ")\n"
        )
    )
    collected = pytester.runpytest("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["6 tests*"])
    assert "E12" not in collected.stdout.str()
    assert "[16-" not in collected.stdout.str()


def test_make_conformance_tests_refuses_unknown_excluded_rows() -> None:
    from prism.conformance import make_conformance_tests

    with pytest.raises(ValueError, match="unknown threat row"):
        make_conformance_tests(package="prism-core", exclude=["99"])


def test_prism_time_factor_scales_the_bounds_for_the_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_factor=(
            "from prism.core.testing import scaled\ndef test_scaled():\n    assert scaled(2) == 6\n"
        )
    )
    pytester.runpytest("--prism-time-factor", "3").assert_outcomes(passed=1)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "abc"])
def test_a_bad_prism_time_factor_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(f"--prism-time-factor={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--prism-time-factor must be a finite number from 1 to 100*"])


NO_ADAPTERS = (
    "import pytest\n"
    "from prism.conformance import ConformanceSubjects\n\n"
    "@pytest.fixture\n"
    "def prism_conformance_subjects():\n"
    "    return ConformanceSubjects()  # no MCP subject: rows 8-10 skip\n"
)


def test_a_session_where_every_row_skipped_says_so_loudly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NO_ADAPTERS)
    result = pytester.runpytest(
        "--prism-conformance", "--prism-conformance-rows", "8", "--prism-conformance-backend",
        "asyncio",
    )  # fmt: skip
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*prism-conformance: NOTHING RAN: all 1 threat-row tests*"])


def test_a_skipped_required_row_fails_its_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NO_ADAPTERS)
    result = pytester.runpytest(
        "--prism-conformance", "--prism-conformance-rows", "4",
        "--prism-conformance-require", "8", "--prism-conformance-backend", "asyncio",
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*threat row 8 * was skipped but it is required*"])
    assert "NOTHING RAN" not in result.stdout.str()


def test_fail_on_skip_fails_every_skipped_row(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NO_ADAPTERS)
    result = pytester.runpytest(
        "--prism-conformance", "--prism-conformance-rows", "4,8",
        "--prism-conformance-fail-on-skip", "--prism-conformance-backend", "asyncio",
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*--prism-conformance-fail-on-skip is set*"])


def test_an_unknown_required_row_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--prism-conformance", "--prism-conformance-require", "Q2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--prism-conformance-require: unknown threat row(s) Q2*"])
