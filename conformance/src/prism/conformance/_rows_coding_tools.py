"""Conformance rows owned by prism-coding-tools (checks import the package lazily)."""

from __future__ import annotations
