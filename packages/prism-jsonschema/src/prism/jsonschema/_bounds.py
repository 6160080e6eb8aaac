"""The one place bound options are checked: int, not bool, >= 1, at most the hard cap."""

from __future__ import annotations

from typing import Any

__all__ = ["check_count_bound", "count_bound"]


def check_count_bound(name: str, value: object, cap: int) -> None:
    """Raise ``ValueError`` naming ``name`` and ``cap`` unless ``value`` is an int in [1, cap]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int between 1 and {cap:,}, not {value!r}")
    if value < 1 or value > cap:
        raise ValueError(f"{name} must be between 1 and the hard cap {cap:,}, not {value:,}")


def count_bound(cap: int) -> Any:
    """An attrs validator enforcing ``check_count_bound`` with ``cap``."""

    def validate(_instance: object, attribute: Any, value: object) -> None:
        check_count_bound(attribute.name, value, cap)

    return validate
