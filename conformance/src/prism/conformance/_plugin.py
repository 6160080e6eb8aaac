"""pytest plugin: ``--prism-conformance`` adds one test per threat row × backend.

The ``prism_conformance_subjects`` fixture supplies the subjects; a downstream ``conftest.py``
overrides it. The row tests are attached next to each overriding ``conftest.py`` (so the
override is visible to them), or to the session when nothing overrides the fixture.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from prism.core.testing import TIME_FACTOR_ENV, set_time_factor, time_factor

from ._pytest_tests import OUTCOMES, SUBJECTS_FIXTURE, run_row_as_test, select_rows
from ._runner import BACKENDS, parse_row_ids
from ._subjects import ConformanceSubjects, default_subjects

_CANDIDATES = pytest.StashKey[list[tuple[pytest.Collector, Path]]]()
_COLLECTED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("prism-conformance", "Prism threat-matrix conformance")
    group.addoption(
        "--prism-conformance",
        action="store_true",
        default=False,
        help="add one test per threat row and backend (subjects: prism_conformance_subjects)",
    )
    group.addoption(
        "--prism-conformance-rows",
        default=None,
        metavar="IDS",
        help="comma-separated threat rows to run, e.g. 1,5,E3 (default: all)",
    )
    group.addoption(
        "--prism-conformance-backend",
        choices=("asyncio", "trio", "both"),
        default="both",
        help="async backend(s) for the threat rows (default: both)",
    )
    group.addoption(
        "--prism-conformance-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="outer deadline per row and backend (default: each row's own, 60 s)",
    )
    group.addoption(
        "--prism-conformance-require",
        default=None,
        metavar="IDS",
        help="comma-separated threat rows that must run: a skip of one fails its test",
    )
    group.addoption(
        "--prism-conformance-fail-on-skip",
        action="store_true",
        default=False,
        help="every skipped threat-row test fails instead",
    )
    group.addoption(
        "--prism-time-factor",
        default=None,
        metavar="X",
        help=(
            "multiply every wall-clock bound of the rows (and of tests using "
            "prism.core.testing.scaled) by X, from 1 to 100 (default: $PRISM_TEST_TIME_FACTOR or 1)"
        ),
    )


def _rows(config: pytest.Config) -> tuple[str, ...]:
    """The selected rows, with the required ones added."""
    rows = config.getoption("prism_conformance_rows")
    required = config.getoption("prism_conformance_require")
    if rows is not None and required is not None:
        rows = f"{rows},{required}"
    return select_rows(None, rows)


def _backends(config: pytest.Config) -> tuple[str, ...]:
    choice = config.getoption("prism_conformance_backend")
    return BACKENDS if choice == "both" else (str(choice),)


def pytest_configure(config: pytest.Config) -> None:
    try:
        _rows(config)
    except ValueError as exc:
        raise pytest.UsageError(f"--prism-conformance-rows: {exc}") from None
    required = config.getoption("prism_conformance_require")
    try:
        if required is not None:
            parse_row_ids(required)
    except ValueError as exc:
        raise pytest.UsageError(f"--prism-conformance-require: {exc}") from None
    timeout = config.getoption("prism_conformance_timeout")
    if timeout is not None and not 0 < timeout <= 3600:
        raise pytest.UsageError("--prism-conformance-timeout must be in (0, 3600] seconds")
    _configure_time_factor(config)
    config.stash[_CANDIDATES] = []
    config.stash[_COLLECTED] = False


def _configure_time_factor(config: pytest.Config) -> None:
    """Check the factor; ``--prism-time-factor`` sets it for this session (restored after)."""
    factor = config.getoption("prism_time_factor")
    try:
        if factor is None:
            time_factor()
            return
        before = os.environ.get(TIME_FACTOR_ENV)
        set_time_factor(factor, where="--prism-time-factor")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None

    def restore() -> None:
        if before is None:
            os.environ.pop(TIME_FACTOR_ENV, None)
        else:
            os.environ[TIME_FACTOR_ENV] = before

    config.add_cleanup(restore)


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    """The subjects the threat rows run against; override it in your ``conftest.py``."""
    return default_subjects()


def _row_test(row_id: str, backend: str) -> Callable[[pytest.FixtureRequest], None]:
    def threat_row(request: pytest.FixtureRequest) -> None:
        run_row_as_test(row_id, backend, request)

    return threat_row


def _items(parent: pytest.Collector, config: pytest.Config) -> Iterator[pytest.Item]:
    for row_id in _rows(config):
        for backend in _backends(config):
            yield pytest.Function.from_parent(
                parent, name=f"threat_row[{row_id}-{backend}]", callobj=_row_test(row_id, backend)
            )


class ConformanceFile(pytest.File):
    """The threat rows, collected beside a ``conftest.py`` that overrides the subjects."""

    def collect(self) -> Iterator[pytest.Item]:
        self.config.stash[_COLLECTED] = True
        yield from _items(self, self.config)


class ConformanceSession(pytest.Collector):
    """The threat rows with the plugin's default subjects (nothing overrides them)."""

    def collect(self) -> Iterator[pytest.Item]:
        yield from _items(self, self.config)


def _overrides_subjects(config: pytest.Config, conftest: Path) -> bool:
    for plugin in config.pluginmanager.get_plugins():
        file = getattr(plugin, "__file__", None)
        if file and Path(file).resolve() == conftest.resolve():
            return hasattr(plugin, SUBJECTS_FIXTURE)
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not config.getoption("prism_conformance") or file_path.name != "conftest.py":
        return None
    if not _overrides_subjects(config, file_path):
        return None
    config.stash[_CANDIDATES].append((parent, file_path))
    return ConformanceFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if config.getoption("prism_conformance") and not config.stash[_COLLECTED]:
        # Nothing collected beside an override (e.g. only some files were selected):
        # attach the rows to the overriding conftest's directory anyway, else to the session.
        candidates = config.stash[_CANDIDATES]
        if candidates:
            for parent, path in candidates:
                items.extend(ConformanceFile.from_parent(parent, path=path).collect())
        else:
            node = ConformanceSession.from_parent(
                session, name="prism-conformance", nodeid="prism-conformance"
            )
            items.extend(node.collect())
    _deselect_unselected(config, items)


def _deselect_unselected(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--prism-conformance-rows`` / ``-backend`` also narrow ``make_conformance_tests`` items."""
    rows, backends = set(_rows(config)), set(_backends(config))
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        spec: Any = getattr(item, "callspec", None)
        params = spec.params if spec is not None else {}
        row = params.get("prism_conformance_row")
        backend = params.get("prism_conformance_backend")
        if row is not None and (row not in rows or backend not in backends):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """A loud line when threat-row tests were collected but every one of them was skipped."""
    outcomes = config.stash.get(OUTCOMES, None)
    if outcomes and outcomes["ran"] == 0:
        terminalreporter.write_sep(
            "!",
            f"prism-conformance: NOTHING RAN: all {outcomes['skipped']} threat-row tests were "
            "skipped, and a skip proves nothing (--prism-conformance-require IDS or "
            "--prism-conformance-fail-on-skip make them fail)",
            red=True,
            bold=True,
        )
