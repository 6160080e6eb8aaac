"""Vulture whitelist: names the dead-code check must not report (false positives only).

Each helper appends a block headed ``# <package>``; one line per name, ``_.name  # why``.
Vulture only reads the names here: this module is never imported or run.
"""

# ruff: noqa
# mypy: ignore-errors

_ = object()

# scripts
_.pycache_prefix  # bench/_common.py sets sys.pycache_prefix (read by the interpreter)
_.tempdir  # bench/coding_tools.py sets tempfile.tempdir (read by tempfile)
_.noop_tool  # bench/integrations.py registers it with a decorator on a pydantic-ai toolset

# prism-core (prism.core.testing.RecordingTools)
_.exclusive_overlap  # public result attribute of a test double, read by the adapter tests

# prism-conformance
_.exec  # _rows_coding_security._RecordingShell.exec: a ShellOperations implementation
_.on_data  # a ShellOperations.exec keyword the recording fake accepts and ignores

# prism-otel
_.instrument  # PrismTelemetry.instrument: public API (the README's wiring), called by hosts
