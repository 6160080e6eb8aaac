"""The one root of every exception Prism raises (docs/errors.md)."""

from __future__ import annotations

__all__ = ["PrismError"]


class PrismError(Exception):
    """Base of every Prism exception; each also subclasses the built-in it is closest to.

    ``except PrismError`` catches whatever any Prism package raised on purpose, and
    ``except ValueError`` (or ``TimeoutError``, ...) keeps working for code that knows no Prism.
    """
