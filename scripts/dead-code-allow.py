"""Vulture whitelist: names the dead-code check must not report (false positives only).

Each helper appends a block headed ``# <package>``; one line per name, ``_.name  # why``.
Vulture only reads the names here: this module is never imported or run.
"""

# ruff: noqa
# mypy: ignore-errors

_ = object()
