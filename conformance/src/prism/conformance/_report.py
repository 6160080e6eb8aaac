"""The outcome of a conformance run: one ``RowResult`` per row × backend, and a summary."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Literal, final

from ._matrix import THREAT_MATRIX, ThreatRow, row_by_id

__all__ = ["REPORT_SCHEMA", "ConformanceReport", "RowResult", "RowStatus"]

RowStatus = Literal["passed", "failed", "skipped"]

REPORT_SCHEMA = "prism-conformance-report/1"
"""The ``schema`` field of ``ConformanceReport.to_json()``; bumped on incompatible change."""

_DISTRIBUTIONS = sorted({row.package for row in THREAT_MATRIX} | {"prism-conformance"})


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RowResult:
    """One threat row on one backend: passed, failed (with a message) or skipped (with why)."""

    row: ThreatRow
    backend: str
    status: RowStatus
    message: str | None = None
    duration_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (see ``ConformanceReport.to_json``)."""
        return {
            "row": self.row.id,
            "package": self.row.package,
            "scenario": self.row.scenario,
            "backend": self.backend,
            "status": self.status,
            "message": self.message,
            "duration_seconds": round(self.duration_seconds, 6),
        }


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ConformanceReport:
    """Every ``RowResult`` of a run, in matrix order, with summary counts."""

    results: tuple[RowResult, ...]
    backends: tuple[str, ...]

    def _count(self, status: RowStatus) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def passed(self) -> int:
        """Number of row × backend results that passed."""
        return self._count("passed")

    @property
    def failed(self) -> int:
        """Number of row × backend results that failed."""
        return self._count("failed")

    @property
    def skipped(self) -> int:
        """Number of row × backend results that were skipped."""
        return self._count("skipped")

    @property
    def ok(self) -> bool:
        """True when nothing failed (skips do not fail a run)."""
        return self.failed == 0

    @property
    def nothing_ran(self) -> bool:
        """True when no row × backend passed or failed: every result was a skip (or none)."""
        return self.passed == 0 and self.failed == 0

    def skipped_of(self, row_ids: Iterable[str]) -> tuple[RowResult, ...]:
        """The skipped results of ``row_ids`` (required rows that did not run), in run order."""
        wanted = {row_by_id(row_id).id for row_id in row_ids}
        return tuple(r for r in self.results if r.status == "skipped" and r.row.id in wanted)

    def results_rows(self) -> tuple[str, ...]:
        """The ids of the rows this report holds, in matrix order."""
        return tuple(dict.fromkeys(r.row.id for r in self.results))

    def summary(self) -> str:
        """``N passed, N failed, N skipped``."""
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"

    def result(self, row_id: str, backend: str) -> RowResult:
        """The result of ``row_id`` on ``backend`` (``KeyError`` if it was not run)."""
        row = row_by_id(row_id)
        for r in self.results:
            if r.row.id == row.id and r.backend == backend:
                return r
        raise KeyError(f"row {row.id} was not run on {backend!r}")

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (schema ``prism-conformance-report/1``)."""
        return {
            "schema": REPORT_SCHEMA,
            "ok": self.ok,
            "summary": {
                "passed": self.passed,
                "failed": self.failed,
                "skipped": self.skipped,
                "total": len(self.results),
            },
            "backends": list(self.backends),
            "environment": {
                "python": platform.python_version(),
                "implementation": sys.implementation.name,
                "platform": sys.platform,
                "distributions": {name: _version(name) for name in _DISTRIBUTIONS},
            },
            "results": [r.to_dict() for r in self.results],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The report as a JSON document (see ``to_dict``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
