"""Threat rows 8, 9, 10, E8 and E9, run through prism-conformance's pytest integration.

The subjects come from the plugin's ``prism_conformance_subjects`` fixture (first-party
defaults, so this bridge); each row runs on asyncio and on trio in its own event loop.
"""

from __future__ import annotations

from prism.conformance import make_conformance_tests

test_prism_mcp_threat_rows = make_conformance_tests(package="prism-mcp")
