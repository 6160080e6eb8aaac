"""Conformance rows owned by prism-coding-security (checks import the package lazily)."""

from __future__ import annotations
