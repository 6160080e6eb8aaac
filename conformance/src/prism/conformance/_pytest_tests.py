"""Threat rows as pytest tests: ``make_conformance_tests`` and the per-item runner.

A row's outcome maps one to one: passed → pass, failed → ``pytest.fail`` with the row's
message, skipped → ``pytest.skip`` with the reason, or ``pytest.fail`` when the row is required
(``--prism-conformance-require``) or every skip fails (``--prism-conformance-fail-on-skip``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from ._matrix import THREAT_MATRIX
from ._runner import BACKENDS, _check_backends, parse_row_ids, run_row
from ._subjects import ConformanceSubjects, default_subjects

__all__ = ["OUTCOMES", "SUBJECTS_FIXTURE", "make_conformance_tests", "run_row_as_test"]

SUBJECTS_FIXTURE = "prism_conformance_subjects"
"""The fixture a downstream ``conftest.py`` overrides to plug in its own subjects."""

_PACKAGES = tuple(dict.fromkeys(row.package for row in THREAT_MATRIX))
OUTCOMES = pytest.StashKey[dict[str, int]]()
"""Row-test outcomes of the session (``ran``, ``skipped``): the plugin's summary reads them."""


def select_rows(
    package: str | None = None, rows: str | Iterable[str] | None = None
) -> tuple[str, ...]:
    """Row ids owned by ``package`` (all if ``None``), narrowed to ``rows`` if given."""
    if package is not None and package not in _PACKAGES:
        rule = "one of " + ", ".join(map(repr, _PACKAGES)) + " or None"
        raise ValueError(f"make_conformance_tests.package must be {rule}, got {package!r}")
    chosen = parse_row_ids(rows) if rows is not None else tuple(r.id for r in THREAT_MATRIX)
    return tuple(r.id for r in THREAT_MATRIX if r.id in chosen and package in (None, r.package))


def _subjects(request: pytest.FixtureRequest) -> ConformanceSubjects:
    try:
        subjects = request.getfixturevalue(SUBJECTS_FIXTURE)
    except pytest.FixtureLookupError:  # plugin disabled: fall back to the defaults
        return default_subjects()
    if not isinstance(subjects, ConformanceSubjects):
        raise TypeError(
            f"fixture {SUBJECTS_FIXTURE!r}: returned {type(subjects).__name__}, "
            "not a ConformanceSubjects"
        )
    return subjects


def _timeout(config: pytest.Config) -> float | None:
    value = config.getoption("prism_conformance_timeout", default=None)
    return None if value is None else float(value)


def run_row_as_test(row_id: str, backend: str, request: pytest.FixtureRequest) -> None:
    """Run one row on one backend as the body of a pytest test."""
    result = run_row(
        row_id, _subjects(request), backend=backend, timeout_seconds=_timeout(request.config)
    )
    where = f"threat row {result.row.id} ({result.row.scenario}) on {backend}"
    outcomes = request.config.stash.setdefault(OUTCOMES, {"ran": 0, "skipped": 0})
    outcomes["skipped" if result.status == "skipped" else "ran"] += 1
    if result.status == "failed":
        pytest.fail(f"{where}: {result.message}", pytrace=False)
    if result.status == "skipped":
        why = _must_run(request.config, result.row.id)
        if why is not None:
            pytest.fail(f"{where} was skipped but {why}: {result.message}", pytrace=False)
        pytest.skip(f"{where}: {result.message}")


def _must_run(config: pytest.Config, row_id: str) -> str | None:
    """Why a skip of ``row_id`` fails the test (the plugin's options), or ``None``."""
    if config.getoption("prism_conformance_fail_on_skip", default=False):
        return "--prism-conformance-fail-on-skip is set"
    required = config.getoption("prism_conformance_require", default=None)
    if required and row_id in parse_row_ids(required):
        return "it is required (--prism-conformance-require)"
    return None


def make_conformance_tests(
    package: str | None = None,
    *,
    rows: str | Iterable[str] | None = None,
    exclude: str | Iterable[str] = (),
    backends: Sequence[str] = BACKENDS,
) -> Callable[..., None]:
    """A parametrized pytest test running the rows ``package`` owns, on each backend.

    Put ``test_conformance = make_conformance_tests(package="prism-mcp")`` in a test module;
    subjects come from the ``prism_conformance_subjects`` fixture (overridable). ``exclude``
    leaves out rows a subject cannot take part in (say why beside the call).
    """
    chosen = _check_backends(backends)
    left_out = set(parse_row_ids(exclude)) if exclude else set()
    params = [
        pytest.param(row_id, backend, id=f"{row_id}-{backend}")
        for row_id in select_rows(package, rows)
        if row_id not in left_out
        for backend in chosen
    ]

    def test_prism_conformance(
        prism_conformance_row: str, prism_conformance_backend: str, request: Any
    ) -> None:
        run_row_as_test(prism_conformance_row, prism_conformance_backend, request)

    mark = pytest.mark.parametrize(("prism_conformance_row", "prism_conformance_backend"), params)
    test: Callable[..., None] = mark(test_prism_conformance)
    return test
