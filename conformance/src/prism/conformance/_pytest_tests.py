"""Threat rows as pytest tests: ``make_conformance_tests`` and the per-item runner.

A row's outcome maps one to one: passed → pass, failed → ``pytest.fail`` with the row's
message, skipped → ``pytest.skip`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from ._matrix import THREAT_MATRIX
from ._runner import BACKENDS, _check_backends, parse_row_ids, run_row
from ._subjects import ConformanceSubjects, default_subjects

__all__ = ["SUBJECTS_FIXTURE", "make_conformance_tests", "run_row_as_test"]

SUBJECTS_FIXTURE = "prism_conformance_subjects"
"""The fixture a downstream ``conftest.py`` overrides to plug in its own subjects."""

_PACKAGES = tuple(dict.fromkeys(row.package for row in THREAT_MATRIX))


def select_rows(
    package: str | None = None, rows: str | Iterable[str] | None = None
) -> tuple[str, ...]:
    """Row ids owned by ``package`` (all if ``None``), narrowed to ``rows`` if given."""
    if package is not None and package not in _PACKAGES:
        raise ValueError(f"unknown package {package!r}; rows belong to: {', '.join(_PACKAGES)}")
    chosen = parse_row_ids(rows) if rows is not None else tuple(r.id for r in THREAT_MATRIX)
    return tuple(r.id for r in THREAT_MATRIX if r.id in chosen and package in (None, r.package))


def _subjects(request: pytest.FixtureRequest) -> ConformanceSubjects:
    try:
        subjects = request.getfixturevalue(SUBJECTS_FIXTURE)
    except pytest.FixtureLookupError:  # plugin disabled: fall back to the defaults
        return default_subjects()
    if not isinstance(subjects, ConformanceSubjects):
        raise TypeError(
            f"the {SUBJECTS_FIXTURE} fixture must return a ConformanceSubjects, "
            f"got {type(subjects).__name__}"
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
    if result.status == "failed":
        pytest.fail(f"{where}: {result.message}", pytrace=False)
    if result.status == "skipped":
        pytest.skip(f"{where}: {result.message}")


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
