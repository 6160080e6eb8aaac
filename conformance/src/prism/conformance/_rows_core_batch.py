"""Conformance rows owned by prism-core about batches and the loop: 5, 6, E1, E2."""

from __future__ import annotations
