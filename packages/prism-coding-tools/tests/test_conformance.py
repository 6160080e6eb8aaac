"""Threat rows 15, E3, E4, E5, E6 (owned by this package), on asyncio and trio."""

from prism.conformance import make_conformance_tests

test_conformance = make_conformance_tests(package="prism-coding-tools")
