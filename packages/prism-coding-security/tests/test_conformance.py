"""The threat rows prism-coding-security owns, run through the prism-conformance pytest plugin."""

from prism.conformance import make_conformance_tests

test_conformance = make_conformance_tests(package="prism-coding-security")
