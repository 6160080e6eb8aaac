"""Tests of prism-conformance itself. ``downstream/`` is a sample project run by pytester."""

collect_ignore = ["downstream"]
