"""The compile cache: a cachetools LRU keyed by canonical hash, fronted by an identity index.

A hit by identity costs one dict lookup plus an LRU touch: no serialization, no schema walk.
Each identity alias keeps a strong reference to its schema object so its ``id`` cannot be
recycled while the alias exists. Evicting an entry drops its aliases.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from cachetools import LRUCache

__all__ = ["MAX_ALIASES", "CacheInfo", "CompileCache", "Entry"]

MAX_ALIASES: Final = 8
"""Distinct schema objects (equal content) remembered by identity per cache entry."""


class CacheInfo(NamedTuple):
    """Compile-cache counters; ``compiles`` counts engine compilations (failed ones included)."""

    hits: int
    misses: int
    compiles: int
    size: int


@dataclass(slots=True, eq=False)
class Entry:
    """One cached schema: a compiled validator, or the result that rejects it."""

    key: object
    fast: Any = None
    collect_all: Any = None
    rs_validator: Any = None
    rejected: Any = None
    aliases: list[int] = field(default_factory=list)


class _Lru(LRUCache[object, Entry]):
    def __init__(self, maxsize: int, on_evict: Callable[[Entry], None]) -> None:
        super().__init__(maxsize)
        self._on_evict = on_evict

    def popitem(self) -> tuple[object, Entry]:
        for _attempt in range(8):
            try:
                key, entry = super().popitem()
                break
            except RuntimeError:  # the order was touched (lock-free hit) mid-iteration: retry
                continue
        else:
            key, entry = super().popitem()
        self._on_evict(entry)
        return key, entry

    def toucher(self) -> Callable[[object], object]:
        """A lock-free "refresh LRU position of key" (raises ``KeyError`` when absent).

        cachetools keeps LRU order in a private ``OrderedDict``; moving a key to its end is one
        atomic C call. Falls back to the public (slower) ``__getitem__`` if that changes.
        """
        order = getattr(self, "_LRUCache__order", None)
        if isinstance(order, OrderedDict):
            return order.move_to_end
        return self.__getitem__


class CompileCache:
    """LRU of ``Entry`` by key, plus ``id(schema) -> (schema, Entry)`` aliases."""

    def __init__(self, size: int) -> None:
        self.lock = threading.Lock()
        self.by_id: dict[int, tuple[object, Entry]] = {}
        self.hits = 0
        self.hit_counters: list[Callable[[], int]] = []
        self.misses = 0
        self.compiles = 0
        self._lru = _Lru(size, self._drop_aliases)
        self.touch = self._lru.toucher()

    def lookup(self, key: object) -> Entry | None:
        """The entry stored under ``key`` (refreshing it), counted as a hit, or ``None``."""
        with self.lock:
            entry = self._lru.get(key)
            if entry is not None:
                self.hits += 1
            return entry

    def store(self, entry: Entry) -> Entry:
        """Insert a freshly built entry (a racing thread's equal entry wins)."""
        with self.lock:
            self.misses += 1
            existing = self._lru.get(entry.key)
            if existing is not None:
                return existing
            self._lru[entry.key] = entry
            return entry

    def alias(self, schema: object, entry: Entry) -> None:
        """Remember ``schema`` by identity as another name for ``entry``."""
        with self.lock:
            if entry.key not in self._lru:
                return
            marker = id(schema)
            self.by_id[marker] = (schema, entry)
            entry.aliases.append(marker)
            if len(entry.aliases) > MAX_ALIASES:
                self.by_id.pop(entry.aliases.pop(0), None)

    def info(self) -> CacheInfo:
        """Current counters and size."""
        with self.lock:
            hits = self.hits + sum(counter() for counter in self.hit_counters)
            return CacheInfo(hits, self.misses, self.compiles, len(self._lru))

    def _drop_aliases(self, entry: Entry) -> None:
        for marker in entry.aliases:
            alias = self.by_id.get(marker)
            if alias is not None and alias[1] is entry:
                del self.by_id[marker]
        entry.aliases.clear()
