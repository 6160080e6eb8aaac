"""Conformance rows owned by prism-mcp (checks import the package lazily)."""

from __future__ import annotations
