"""The jsonschema-rs engine (extra ``prism-jsonschema[rs]``): compiled in Rust, no Python code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from ._walk import Json, SchemaRejected

__all__ = ["RsValidator", "compile_rs", "rs_available"]


class RsValidator(Protocol):
    """The part of ``jsonschema_rs.Validator`` used here."""

    def is_valid(self, instance: Any) -> bool: ...
    def iter_errors(self, instance: Any) -> Iterator[Any]: ...


def rs_available() -> bool:
    """Whether ``jsonschema_rs`` can be imported."""
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:
        return False
    return True


def _refuse(uri: str) -> Any:
    raise ValueError(f"reference {uri[:120]!r} would need a fetch; nothing is fetched")


def compile_rs(document: dict[str, Json], *, validate_formats: bool) -> RsValidator:
    """Build a validator; a retriever that refuses everything keeps it offline."""
    import jsonschema_rs

    try:
        validator: RsValidator = jsonschema_rs.validator_for(
            document, validate_formats=validate_formats, retriever=_refuse
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        message = str(getattr(exc, "message", None) or exc).splitlines()[0]
        raise SchemaRejected(f"schema is not valid: {message[:300]}") from None
    return validator
