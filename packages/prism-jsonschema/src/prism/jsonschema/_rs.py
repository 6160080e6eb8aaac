"""The jsonschema-rs engine (extra ``prism-jsonschema[rs]``): compiled in Rust, no Python code.

Patterns use Rust's linear-time ``regex`` engine (``RegexOptions``), never the backtracking
``fancy-regex`` default; the schema walk has already refused what RE2 cannot express.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Protocol

from prism.core import ToolArgumentValidationIssue

from ._pointer import join_pointer
from ._regex import REGEX_MAX_MEM
from ._walk import Json, SchemaRejected

_NATIVE_INTEGER: Final[dict[str, Json]] = {"maximum": 2**64 - 1, "minimum": -(2**63)}
"""The integers jsonschema-rs holds natively (``i64`` and ``u64``): comparing one with these
integer limits is cheap, where a float or big-number limit costs about 0.3 µs per integer."""

__all__ = [
    "RsValidator",
    "bounds_schema",
    "compile_rs",
    "compile_rs_bounds",
    "lone_surrogate",
    "rs_available",
]


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
    raise ValueError(f"reference {uri[:120]!r}: would need a fetch; nothing is fetched")


def compile_rs(
    document: dict[str, Json], *, validate_formats: bool, keywords: dict[str, type] | None = None
) -> RsValidator:
    """Build a validator; a retriever that refuses everything keeps it offline. ``keywords``
    replace built-in keywords (see ``_exact``)."""
    import jsonschema_rs

    try:
        validator: RsValidator = jsonschema_rs.validator_for(
            document,
            validate_formats=validate_formats,
            keywords=keywords,
            retriever=_refuse,
            pattern_options=jsonschema_rs.RegexOptions(
                size_limit=REGEX_MAX_MEM, dfa_size_limit=REGEX_MAX_MEM
            ),
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        message = str(getattr(exc, "message", None) or exc).splitlines()[0]
        raise SchemaRejected(f"schema is not valid: {message[:300]}") from None
    return validator


def bounds_schema(
    *, max_depth: int, max_properties: int, max_string: int, max_items: int
) -> dict[str, Json]:
    """The instance bounds as a schema: a chain of one ``$defs`` entry per nesting level.

    Level ``k`` bounds a value at depth ``k`` (the root container is at 1); a container below
    ``max_depth`` fails. ``type`` also fails NaN and the infinities (not JSON numbers).
    """
    json_types: list[Json] = ["null", "boolean", "object", "array", "number", "string"]
    # jsonschema-rs sees an integer too long to print as an "integer" that is no "number" and
    # passes `maximum` (a type *list* passes it too), so each integer is asked to be a number
    # that fits i64/u64: a cheap comparison with integer limits. Larger integers take the slow
    # path, where the Python walk applies the real bound (MAX_INSTANCE_INT_BITS) and the engine
    # then compares exactly.
    integer: dict[str, Json] = {"type": "number", **_NATIVE_INTEGER}
    scalar: dict[str, Json] = {
        "type": json_types,
        "maxLength": max_string,
        "if": {"type": "integer"},
        "then": integer,
    }
    levels: dict[str, Json] = {}
    for level in range(1, max_depth + 1):
        child: Json = {"$ref": f"#/$defs/level{level + 1}"}
        levels[f"level{level}"] = {
            **scalar,
            "maxProperties": max_properties,
            "maxItems": max_items,
            "propertyNames": {"maxLength": max_string},
            "additionalProperties": child,
            "items": child,
        }
    levels[f"level{max_depth + 1}"] = {
        **scalar,
        "type": ["null", "boolean", "number", "string"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": levels,
        "$ref": "#/$defs/level1",
    }


def compile_rs_bounds(
    *, max_depth: int, max_properties: int, max_string: int, max_items: int
) -> RsValidator:
    """The bounds schema, compiled: one Rust pass over the instance before the user schema."""
    document = bounds_schema(
        max_depth=max_depth,
        max_properties=max_properties,
        max_string=max_string,
        max_items=max_items,
    )
    return compile_rs(document, validate_formats=False)


def lone_surrogate(instance: object) -> ToolArgumentValidationIssue | None:
    """The value error for the first string or key holding a lone surrogate (jsonschema-rs
    reads text as UTF-8 and cannot take one), or ``None``. Only run once the engine failed."""
    stack: list[tuple[object, tuple[str, ...]]] = [(instance, ())]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key in value:
                if not _is_text(key):
                    return _unreadable(where, "a key holds", key)
            stack.extend((item, (*where, key)) for key, item in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((item, (*where, str(i))) for i, item in reversed(list(enumerate(value))))
        elif isinstance(value, str) and not _is_text(value):
            return _unreadable(where, "it holds", value)
    return None


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unreadable(where: tuple[str, ...], what: str, text: str) -> ToolArgumentValidationIssue:
    index = next(i for i, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF)
    return ToolArgumentValidationIssue(
        path=join_pointer(where),
        message=f"must be Unicode text: {what} a lone surrogate U+{ord(text[index]):04X} at "
        f"index {index} (the jsonschema-rs engine reads text as UTF-8)",
    )
