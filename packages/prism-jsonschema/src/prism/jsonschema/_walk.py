"""Copy an untrusted schema into plain JSON, enforcing the document-level bounds on the way.

The copy holds only exact ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``, so no
object with a custom ``__repr__``/``__str__``/``__format__`` can ever reach code generation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard

from ._pointer import Path, location

if TYPE_CHECKING:
    from ._options import JsonSchemaValidatorOptions

__all__ = [
    "MAX_INT_BITS",
    "REF_KEYWORDS",
    "Json",
    "SchemaRejected",
    "WalkState",
    "is_array",
    "is_object",
]

Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"

MAX_INT_BITS = 1024
"""Integers wider than this (about 308 digits) are refused: no JSON Schema needs them."""

REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


class SchemaRejected(Exception):
    """The schema broke a bound or a rule; ``str()`` is the reason, naming the bound."""


class WalkState:
    """Counters and limits shared by one walk over one schema document."""

    def __init__(self, options: JsonSchemaValidatorOptions) -> None:
        self.options = options
        self.nodes = 0
        self.approx_bytes = 0
        self.refs: list[tuple[str, Path]] = []
        self._active: set[int] = set()

    def scalar(self, value: object, path: Path) -> Json:
        """Count and copy one non-container value (exact builtin type out)."""
        self._count(path)
        if type(value) is str:
            self.approx_bytes += len(value) + 2
            self._check_size(path)
            return value
        if value is None or value is True or value is False:
            self.approx_bytes += 4
            return value
        if isinstance(value, str):
            self.approx_bytes += len(value) + 2
            self._check_size(path)
            return str.__str__(value)
        if isinstance(value, int):
            if value.bit_length() > MAX_INT_BITS:
                raise SchemaRejected(f"schema integer at {location(path)} is too large")
            self.approx_bytes += 1
            return int.__int__(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise SchemaRejected(f"schema number at {location(path)} is not finite ({value})")
            self.approx_bytes += 1
            return float.__float__(value)
        raise SchemaRejected(
            f"schema value at {location(path)} is not JSON (a {type(value).__name__})"
        )

    def enter(self, value: object, path: Path, depth: int) -> None:
        """Account for entering a container at ``depth`` (root is 1); refuse cycles."""
        self._count(path)
        if depth > self.options.max_schema_depth:
            raise SchemaRejected(
                f"schema nesting at {location(path)} exceeds "
                f"max_schema_depth={self.options.max_schema_depth}"
            )
        marker = id(value)
        if marker in self._active:
            raise SchemaRejected(f"schema contains a reference cycle at {location(path)}")
        self._active.add(marker)
        self.approx_bytes += 2

    def leave(self, value: object) -> None:
        """Pop ``value`` from the active path (shared, acyclic objects are fine)."""
        self._active.discard(id(value))

    def key(self, key: object, path: Path) -> str:
        """Check and copy one object key."""
        if not isinstance(key, str):
            raise SchemaRejected(
                f"schema object at {location(path)} has a non-string key ({type(key).__name__})"
            )
        if key == "__proto__":
            raise SchemaRejected(f"schema key __proto__ at {location(path)} is not allowed")
        self.approx_bytes += len(key) + 3
        self._check_size(path)
        return str.__str__(key)

    def ref(self, keyword: str, value: str, path: Path) -> None:
        """Record a reference; only fragment-local ones (``#...``) are ever resolved."""
        if not value.startswith("#"):
            raise SchemaRejected(
                f"{keyword} {_clip(value)!r} at {location(path)} is not allowed: only "
                "fragment-local references (#...) are resolved, nothing is fetched"
            )
        self.refs.append((value, path))
        if len(self.refs) > self.options.max_refs:
            raise SchemaRejected(
                f"schema has more than max_refs={self.options.max_refs} references"
            )

    def _count(self, path: Path) -> None:
        self.nodes += 1
        if self.nodes > self.options.max_schema_nodes:
            raise SchemaRejected(
                f"schema has more than max_schema_nodes={self.options.max_schema_nodes} nodes "
                f"(stopped at {location(path)})"
            )

    def _check_size(self, path: Path) -> None:
        # approx_bytes never exceeds the real encoded size, so this refuses nothing that fits.
        if self.approx_bytes > self.options.max_schema_bytes:
            raise SchemaRejected(
                f"schema is larger than max_schema_bytes={self.options.max_schema_bytes} "
                f"(stopped at {location(path)})"
            )

    def data(self, value: object, path: Path, depth: int) -> Json:
        """Copy a value in a data position (``const``, ``enum`` ...): an opaque value, whatever
        keys (``$id``, ``$ref`` ...) it holds."""
        if is_object(value):
            self.enter(value, path, depth)
            out: dict[str, Json] = {}
            for raw_key, item in value.items():
                key = self.key(raw_key, path)
                child = (path, key)
                out[key] = self.data(item, child, depth + 1)
            self.leave(value)
            return out
        if is_array(value):
            self.enter(value, path, depth)
            items = [self.data(item, (path, str(i)), depth + 1) for i, item in enumerate(value)]
            self.leave(value)
            return items
        return self.scalar(value, path)


def is_array(value: object) -> TypeGuard[Sequence[Any]]:
    """A JSON array: a list or tuple (or other sequence) that is not text or bytes."""
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    if kind is str or kind is dict:
        return False
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def is_object(value: object) -> TypeGuard[Mapping[Any, Any]]:
    """A JSON object: a dict or any other ``Mapping``."""
    return type(value) is dict or isinstance(value, Mapping)


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
