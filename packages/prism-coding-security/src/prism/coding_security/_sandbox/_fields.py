"""Checks for ``BubblewrapSandbox``'s sequence fields: strings and paths, each error naming
the field and the index (``BubblewrapSandbox.deny_read[2] must be ..., got ...``)."""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["absolute_paths", "strings"]


def strings(where: str, values: object) -> tuple[str, ...]:
    """``values`` as a tuple of non-empty strings without NUL bytes."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{where} must be a sequence of strings, got {values!r:.200}")
    for index, value in enumerate(values):
        if not isinstance(value, str) or not value or "\x00" in value:
            error = ValueError if isinstance(value, str) else TypeError
            raise error(f"{where}[{index}] must be a non-empty string, got {value!r:.200}")
    return tuple(values)


def absolute_paths(where: str, values: object, *, home: bool = False) -> tuple[str, ...]:
    """``strings`` that are absolute paths (or, with ``home``, start with ``~/``)."""
    result = strings(where, values)
    wanted = "absolute or start with ~/" if home else "an absolute path"
    for index, value in enumerate(result):
        tilde = home and (value == "~" or value.startswith("~/"))
        if not (os.path.isabs(value) or tilde):
            raise ValueError(f"{where}[{index}] must be {wanted}, got {value!r}")
    return result
