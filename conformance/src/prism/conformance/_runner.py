"""Run row checks: each in a fresh event loop (asyncio or trio), under an outer deadline."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prism.core.testing import scaled, time_factor

from ._matrix import THREAT_MATRIX, ThreatRow, row_by_id
from ._registry import RowCheck, RowSkippedError, _check_timeout, load_checks, row_timeout_seconds
from ._report import ConformanceReport, RowResult, RowStatus

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

__all__ = [
    "BACKENDS",
    "RunProgress",
    "parse_row_ids",
    "run_conformance",
    "run_row",
]

BACKENDS = ("asyncio", "trio")

_CANCEL_GRACE_SECONDS = 10.0
"""After the deadline cancels a row, how long its loop may take to unwind before we give up."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunProgress:
    """Progress of a run: ``result`` is ``None`` when the row is about to start."""

    index: int
    total: int
    row: ThreatRow
    backend: str
    result: RowResult | None


def parse_row_ids(rows: str | Iterable[str]) -> tuple[str, ...]:
    """Normalize ``"1,5,e3"`` or ``["1", "E3"]`` to matrix ids in matrix order.

    Raises ``ValueError`` naming every unknown id.
    """
    items = rows.split(",") if isinstance(rows, str) else list(rows)
    wanted: set[str] = set()
    unknown: list[str] = []
    for item in items:
        text = str(item).strip()
        if not text:
            continue
        try:
            wanted.add(row_by_id(text).id)
        except KeyError:
            unknown.append(text)
    if unknown:
        known = ", ".join(r.id for r in THREAT_MATRIX)
        raise ValueError(f"unknown threat row(s) {', '.join(unknown)}; known rows: {known}")
    if not wanted:
        raise ValueError(f"no threat rows selected: {rows!r} names none")
    return tuple(r.id for r in THREAT_MATRIX if r.id in wanted)


def _check_backends(backends: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(backends))
    bad = [b for b in chosen if b not in BACKENDS]
    if bad or not chosen:
        raise ValueError(
            f"run_conformance.backends must be a non-empty subset of {BACKENDS}, got {chosen!r}"
        )
    return chosen


def _module_of(package: str) -> str:
    return "prism." + package.removeprefix("prism-").replace("-", "_")


def _distribution_installed(package: str) -> bool:
    """Whether ``prism-x-y`` is installed (``prism.x_y`` can be found)."""
    try:
        return importlib.util.find_spec(_module_of(package)) is not None
    except ModuleNotFoundError:
        return False


_REQUIRES: dict[str, tuple[str, ...]] = {
    "prism-coding-security": ("prism-coding-tools", "prism-coding-security"),
}
"""Distributions a row of ``package`` needs besides ``package`` itself (it drives their tools)."""


def _missing_distribution(row: ThreatRow) -> str | None:
    """The first distribution ``row`` needs that is not installed, or ``None``.

    A skip caused by an absent distribution is always reported as ``<name> is not installed``,
    whatever the check tripped over first (a missing dependency such as anyio, a ``None``
    subject): the user can act on the distribution name, not on its dependencies.
    """
    for package in _REQUIRES.get(row.package, (row.package,)):
        if not _distribution_installed(package):
            return package
    return None


def _broken_install(package: str) -> str | None:
    """Why an installed ``package`` cannot be imported (``None`` if absent or fine).

    A skip must never hide a package that is installed but broken.
    """
    if not _distribution_installed(package):
        return None
    try:
        importlib.import_module(_module_of(package))
    except Exception as exc:
        return f"{package} is installed but fails to import: {type(exc).__name__}: {exc}"
    return None


def _trio_available() -> bool:
    return importlib.util.find_spec("trio") is not None


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {last.filename}:{last.lineno} in {last.name})"


def _classify(exc: BaseException) -> tuple[RowStatus, str]:
    leaves = _leaves(exc)
    if all(isinstance(leaf, RowSkippedError) for leaf in leaves):
        return "skipped", "; ".join(dict.fromkeys(str(leaf) for leaf in leaves))
    if all(isinstance(leaf, RowSkippedError | ModuleNotFoundError) for leaf in leaves):
        names = [getattr(leaf, "name", None) or str(leaf) for leaf in leaves]
        return "skipped", f"{', '.join(dict.fromkeys(names))} is not installed"
    failures = [leaf for leaf in leaves if not isinstance(leaf, RowSkippedError)]
    assertions = [leaf for leaf in failures if isinstance(leaf, AssertionError)]
    if assertions:
        messages = [str(a) or f"assertion failed{_where(a)}" for a in assertions]
        return "failed", "\n".join(dict.fromkeys(messages))
    first = failures[0]
    return "failed", f"{type(first).__name__}: {first}{_where(first)}"


async def _asyncio_main(check: RowCheck, subjects: ConformanceSubjects, timeout: float) -> bool:
    """Run ``check``; True if the deadline cut it short."""
    cm = asyncio.timeout(timeout)
    try:
        async with cm:
            await check(subjects)
    except TimeoutError:
        if cm.expired():
            return True
        raise
    return False


def _run_in_loop(
    check: RowCheck, subjects: ConformanceSubjects, backend: str, timeout: float
) -> tuple[RowStatus, str | None]:
    try:
        if backend == "trio":
            import trio

            async def trio_main() -> bool:
                with trio.move_on_after(timeout) as scope:
                    await check(subjects)
                return bool(scope.cancelled_caught)

            timed_out = trio.run(trio_main)
        else:
            timed_out = asyncio.run(_asyncio_main(check, subjects, timeout))
    except BaseException as exc:  # the check's own failure, reported not raised
        return _classify(exc)
    if timed_out:
        return "failed", (
            f"did not finish within {timeout:g} s on {backend} (a subject hung or ignored "
            "its deadline); the row was cancelled"
        )
    return "passed", None


def _run_isolated(
    check: RowCheck, subjects: ConformanceSubjects, backend: str, timeout: float
) -> tuple[RowStatus, str | None]:
    """Run in a fresh thread so even a loop-blocking subject cannot hang the caller."""
    box: list[tuple[RowStatus, str | None]] = []
    thread = threading.Thread(
        target=lambda: box.append(_run_in_loop(check, subjects, backend, timeout)),
        name=f"prism-conformance-{backend}",
        daemon=True,
    )
    thread.start()
    grace = scaled(_CANCEL_GRACE_SECONDS)
    thread.join(timeout + grace)
    if thread.is_alive() or not box:
        return "failed", (
            f"did not finish within {timeout:g} s on {backend} and did not unwind "
            f"{grace:g} s after cancellation (a subject blocks the event "
            "loop or swallows cancellation); its thread was abandoned"
        )
    return box[0]


def run_row(
    row_id: str,
    subjects: ConformanceSubjects | None = None,
    *,
    backend: str = "asyncio",
    timeout_seconds: float | None = None,
    checks: tuple[dict[str, RowCheck], dict[str, str]] | None = None,
) -> RowResult:
    """Run one threat row on one backend and return its result (never raises for the row).

    The outer deadline (``timeout_seconds`` or the row's own) is multiplied by the test time
    factor (``PRISM_TEST_TIME_FACTOR``), like every wall-clock bound inside the rows.
    """
    row = row_by_id(row_id)
    (backend,) = _check_backends((backend,))
    timeout = (
        row_timeout_seconds(row.id)
        if timeout_seconds is None
        else _check_timeout("timeout_seconds", timeout_seconds)
    ) * time_factor()
    found, import_errors = checks if checks is not None else load_checks()
    check = found.get(row.id)

    def done(status: RowStatus, message: str | None, duration: float = 0.0) -> RowResult:
        return RowResult(
            row=row, backend=backend, status=status, message=message, duration_seconds=duration
        )

    if check is None:
        if row.package in import_errors:
            return done("failed", import_errors[row.package])
        if (broken := _broken_install(row.package)) is not None:
            return done("failed", broken)
        if (missing := _missing_distribution(row)) is not None:
            return done("skipped", f"{missing} is not installed")
        return done("skipped", "not implemented yet (no check registered)")
    if backend == "trio" and not _trio_available():
        return done("skipped", "trio is not installed (pip install trio)")
    if subjects is None:
        from ._subjects import default_subjects

        subjects = default_subjects()
    started = time.perf_counter()
    status, message = _run_isolated(check, subjects, backend, timeout)
    if status == "skipped" and (broken := _broken_install(row.package)) is not None:
        status, message = "failed", broken
    elif status == "skipped" and (missing := _missing_distribution(row)) is not None:
        message = f"{missing} is not installed"
    return done(status, message, time.perf_counter() - started)


def run_conformance(
    subjects: ConformanceSubjects | None = None,
    *,
    backends: Sequence[str] = BACKENDS,
    rows: str | Iterable[str] | None = None,
    timeout_seconds: float | None = None,
    progress: Callable[[RunProgress], Any] | None = None,
) -> ConformanceReport:
    """Run the threat matrix (or ``rows``) on each backend against ``subjects``.

    ``subjects=None`` uses ``default_subjects()`` (the installed first-party packages).
    Rows whose subject or package is missing are ``skipped``, never ``passed``. Each row ×
    backend runs in a fresh event loop under ``timeout_seconds`` (default: the row's own
    deadline, 60 s unless it asks for more), times the test time factor. ``progress`` is
    called before and after each. A bad ``PRISM_TEST_TIME_FACTOR`` raises ``ValueError``.
    """
    chosen_backends = _check_backends(backends)
    time_factor()
    row_ids = parse_row_ids(rows) if rows is not None else tuple(r.id for r in THREAT_MATRIX)
    if timeout_seconds is not None:
        _check_timeout("timeout_seconds", timeout_seconds)
    if subjects is None:
        from ._subjects import default_subjects

        subjects = default_subjects()
    checks = load_checks()
    total = len(row_ids) * len(chosen_backends)
    results: list[RowResult] = []
    for row_id in row_ids:
        for backend in chosen_backends:
            row = row_by_id(row_id)
            if progress is not None:
                progress(
                    RunProgress(
                        index=len(results), total=total, row=row, backend=backend, result=None
                    )
                )
            result = run_row(
                row_id, subjects, backend=backend, timeout_seconds=timeout_seconds, checks=checks
            )
            results.append(result)
            if progress is not None:
                progress(
                    RunProgress(
                        index=len(results), total=total, row=row, backend=backend, result=result
                    )
                )
    return ConformanceReport(results=tuple(results), backends=chosen_backends)
