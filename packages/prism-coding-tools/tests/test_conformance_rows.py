"""This package answers threat rows 15, E3, E4, E5, E6 of the conformance matrix."""

from __future__ import annotations

import anyio
import pytest

from prism.coding_tools import create_coding_tools
from prism.conformance._registry import registered_checks
from prism.conformance._subjects import ConformanceSubjects

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("row", ["15", "E3", "E4", "E5", "E6"])
async def test_conformance_row(row: str) -> None:
    subjects = ConformanceSubjects(coding_tools_factory=create_coding_tools)
    with anyio.fail_after(60):
        await registered_checks()[row](subjects)
