"""Redaction: secrets never leave Prism in results, events or ledger rows."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["REDACTED", "Redactor", "SecretRedactor"]

T = TypeVar("T")

REDACTED = "[REDACTED]"
_MAX_DEPTH = 64


@runtime_checkable
class Redactor(Protocol):
    """Returns a copy of ``value`` with sensitive data replaced; never mutates ``value``."""

    def redact(self, value: T) -> T:
        """Redact ``value``."""
        ...


class SecretRedactor:
    """Replaces each secret with ``[REDACTED]`` in strings and mapping keys, at any depth.

    Walks dicts, lists, tuples, sets and dataclasses; depth-bounded (deeper values become
    ``[REDACTED]``, failing closed) and cycle-safe. Unchanged objects are returned as is.
    """

    __slots__ = ("_regex", "_starts")

    def __init__(self, secrets: Iterable[str]) -> None:
        if isinstance(secrets, str):
            raise TypeError(
                "SecretRedactor.secrets must be an iterable of str, got one str (not shown)"
            )
        unique = sorted({s for s in secrets if s}, key=len, reverse=True)
        for secret in unique:
            if not isinstance(secret, str):
                raise TypeError(
                    "SecretRedactor.secrets must be an iterable of str, got a "
                    f"{type(secret).__name__} (not shown)"
                )
        alternatives = "|".join(map(re.escape, unique))
        self._regex = re.compile(alternatives) if unique else None
        # Every start position's longest secret, overlaps included (the slow, exact pass).
        self._starts = re.compile(f"(?=({alternatives}))") if unique else None

    def redact(self, value: T) -> T:
        """A redacted copy of ``value`` (or ``value`` itself when nothing matched)."""
        if self._regex is None:
            return value
        out: T = self._walk(value, 0, set())
        return out

    def _text(self, text: str) -> str:
        assert self._regex is not None
        out = self._regex.sub(REDACTED, text)
        if out is text or self._regex.search(out) is None:
            return out
        # Overlapping secrets, or a secret that the marker completes: mask the union of every
        # occurrence; if a secret still shows (one inside the marker itself), fail closed.
        out = self._masked_spans(text)
        if self._regex.search(out) is None:
            return out
        return REDACTED if self._regex.search(REDACTED) is None else ""

    def _masked_spans(self, text: str) -> str:
        assert self._starts is not None
        spans: list[list[int]] = []
        for match in self._starts.finditer(text):
            start, end = match.start(), match.start() + len(match.group(1))
            if spans and start <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        pieces, last = [], 0
        for start, end in spans:
            pieces += [text[last:start], REDACTED]
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def _walk(self, value: Any, depth: int, active: set[int]) -> Any:
        if isinstance(value, str):
            return self._text(value)
        if value is None or isinstance(value, (int, float, bytes)):
            return value
        if depth >= _MAX_DEPTH:
            return REDACTED
        key = id(value)
        if key in active:
            return "[CYCLE]"
        active.add(key)
        try:
            return self._container(value, depth + 1, active)
        finally:
            active.discard(key)

    def _container(self, value: Any, depth: int, active: set[int]) -> Any:
        if isinstance(value, Mapping):
            items = [
                (self._walk(k, depth, active), self._walk(v, depth, active))
                for k, v in value.items()
            ]
            if all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True)):
                return value
            return dict(items)
        if isinstance(value, (list, tuple, set, frozenset)):
            new = [self._walk(v, depth, active) for v in value]
            if all(a is b for a, b in zip(new, value, strict=True)):
                return value
            if isinstance(value, list):
                return new
            return type(value)(new) if not hasattr(value, "_fields") else type(value)(*new)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                if not f.init:
                    continue
                old = getattr(value, f.name)
                new_value = self._walk(old, depth, active)
                if new_value is not old:
                    changes[f.name] = new_value
            return dataclasses.replace(value, **changes) if changes else value
        return value
