"""Prism conformance: the threat matrix as a library, a pytest plugin and a CLI."""

from ._canary import Canary, EventRecorder, FileCanary, assert_not_invoked, canary_tool
from ._inspect import assert_transcript_valid, find_secret
from ._matrix import THREAT_MATRIX, ThreatRow, row_by_id
from ._probe import assert_tool_dispatch_conforms
from ._pytest_tests import make_conformance_tests
from ._registry import RowSkippedError, conformance_row, registered_checks, require
from ._report import REPORT_SCHEMA, ConformanceReport, RowResult, RowStatus
from ._runner import BACKENDS, RunProgress, run_conformance, run_row
from ._subject_served import served_subjects
from ._subjects import ConformanceSubjects, default_subjects

__all__ = [
    "BACKENDS",
    "REPORT_SCHEMA",
    "THREAT_MATRIX",
    "Canary",
    "ConformanceReport",
    "ConformanceSubjects",
    "EventRecorder",
    "FileCanary",
    "RowResult",
    "RowSkippedError",
    "RowStatus",
    "RunProgress",
    "ThreatRow",
    "assert_not_invoked",
    "assert_tool_dispatch_conforms",
    "assert_transcript_valid",
    "canary_tool",
    "conformance_row",
    "default_subjects",
    "find_secret",
    "make_conformance_tests",
    "registered_checks",
    "require",
    "row_by_id",
    "run_conformance",
    "run_row",
    "served_subjects",
]
