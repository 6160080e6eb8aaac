"""Threat rows 1, 2, 3, E7 through the prism-conformance plugin, default engine, both backends."""

from __future__ import annotations

from prism.conformance import make_conformance_tests

test_threat_rows = make_conformance_tests(package="prism-jsonschema")
