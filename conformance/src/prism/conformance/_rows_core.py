"""Conformance rows owned by prism-core: 4, 5, 6, 7, 16, E1, E2, E12."""

from __future__ import annotations
