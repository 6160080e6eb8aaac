"""JSON values for function tools: the argument error, type names, equality, and encoding."""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any, final

from ._errors import PrismError

__all__ = [
    "ToolArgumentsError",
    "choice_key",
    "is_json_scalar",
    "json_type",
    "pointer",
    "to_json",
]

_MAX_DEPTH = 64


@final
class ToolArgumentsError(PrismError, ValueError):
    """Arguments that do not fit the function's annotations; ``path`` is a JSON Pointer."""

    code = "invalid_arguments"

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self._keys: list[object] = []  # innermost first, added while the error unwinds

    def inside(self, key: object) -> ToolArgumentsError:
        """Record that the problem sits under ``key`` (an object key or array index)."""
        self._keys.append(key)
        return self

    @property
    def path(self) -> str:
        """Where the problem is, as a JSON Pointer into the arguments (``""`` for the root)."""
        return "".join(pointer("", key) for key in reversed(self._keys))

    def __str__(self) -> str:
        where = f"{self.path}: " if self._keys else ""
        return f"Invalid arguments: {where}{self.problem}"


def json_type(value: object) -> str:
    """The JSON Schema type name of a JSON value (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def pointer(path: str, key: object) -> str:
    """``path`` extended by ``key`` as a JSON Pointer (RFC 6901 escaping)."""
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def is_json_scalar(value: object) -> bool:
    """A string, finite number, boolean or null: what ``enum``/``Literal`` values may be."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int)


def choice_key(value: object) -> tuple[str, object] | None:
    """A hashable key with JSON Schema ``enum`` equality: ``1`` matches ``1.0``, never ``true``."""
    if value is None or isinstance(value, bool):
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return None


def to_json(value: object, depth: int = 0) -> Any:
    """A JSON-compatible copy of ``value``: Enums become values, dataclasses dicts, tuples lists."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"value: nested deeper than {_MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"value {value!r}: not a JSON number")
        return value
    if isinstance(value, enum.Enum):
        return to_json(value.value, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
        }
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"object key {key!r:.200}: not a str")
            out[key] = to_json(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [to_json(item, depth + 1) for item in value]
    raise TypeError(f"value of type {type(value).__name__}: not JSON-compatible")
