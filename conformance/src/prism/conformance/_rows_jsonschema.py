"""Conformance rows owned by prism-jsonschema (checks import the package lazily)."""

from __future__ import annotations
