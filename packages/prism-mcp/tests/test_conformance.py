"""The threat rows prism-mcp owns, run through the prism-conformance pytest plugin."""

from prism.conformance import make_conformance_tests

test_conformance = make_conformance_tests(package="prism-mcp")
