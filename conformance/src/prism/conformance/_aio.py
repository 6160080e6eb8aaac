"""Backend-neutral helpers for the core rows, which must run without anyio.

They reuse prism-core's own backend shim (same project, version range pinned by the dependency)
rather than keeping a second copy of the asyncio/trio detection here.
"""

from __future__ import annotations

import time

from prism.core.lowlevel import current_backend, move_on_after, sleep

__all__ = ["current_backend", "monotonic", "move_on_after", "sleep"]


def monotonic() -> float:
    """Wall-clock monotonic seconds (independent of the backend's clock)."""
    return time.monotonic()
