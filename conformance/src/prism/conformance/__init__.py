"""Prism conformance: the threat matrix as a library, a pytest plugin and a CLI."""

from ._matrix import THREAT_MATRIX, ThreatRow, row_by_id
from ._registry import RowSkipped, conformance_row, registered_checks, require

__all__ = [
    "THREAT_MATRIX",
    "RowSkipped",
    "ThreatRow",
    "conformance_row",
    "registered_checks",
    "require",
    "row_by_id",
]
