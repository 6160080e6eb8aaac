"""The compile cache: a cachetools LRU keyed by canonical hash, fronted by an identity index.

A hit by identity costs one dict lookup plus an LRU touch: no serialization, no schema walk.
Each identity alias keeps a strong reference to its schema object so its ``id`` cannot be
recycled while the alias exists. Evicting an entry drops its aliases.

Threads: every mutation (store, alias, eviction, counters) holds ``lock``; the identity hit does
not. It reads ``by_id`` (one dict lookup) and touches the LRU order (one ``move_to_end``), each a
single C call the GIL keeps atomic. Eviction therefore must never *iterate* the order (a touch
mid-iteration raises ``RuntimeError``): it pops the oldest key with one atomic call instead.
"""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final, NamedTuple

from cachetools import Cache, LRUCache

__all__ = [
    "MAX_ALIASES",
    "WEAK_ALIAS_BYTES",
    "CacheInfo",
    "CompileCache",
    "Entry",
    "names",
    "retained_bytes",
]

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
    patterns: bool = False
    """Whether the schema matches patterns (jsonschema-rs then checks the input bound)."""
    exact: bool = False
    """Whether the schema has ``multipleOf`` (each validation refills its exact-check budget)."""
    expanded: int = 1
    """Expanded size: schema nodes one data node is checked against (see ``_expansion``)."""
    node_limit: int = 1 << 62
    """Most value nodes validated against it (``max_validation_work // expanded``)."""
    collect_limit: int = 0
    """Most value nodes whose errors are all collected (``COLLECT_WORK // expanded``)."""
    scan: int = 0
    """Scan weight: the most pattern and format weight one data node meets (see ``_scan``)."""
    unique_text: bool = False
    """Whether jsonschema-rs hashes the whole text of array items (``uniqueItems: true``)."""
    name_patterns: bool = False
    """Whether ``patternProperties`` matches property names (natively, on jsonschema-rs)."""
    cost: int = 256
    """Estimated bytes this entry keeps alive (generated code, regexes, engine state)."""
    aliases: list[int] = field(default_factory=list)
    """``id(schema)`` per identity alias, oldest first."""
    alias_bytes: dict[int, int] = field(default_factory=dict)
    """What each alias keeps alive (``retained_bytes``), counted in the cache's ``bytes``."""


class _Lru(LRUCache[object, Entry]):
    def __init__(self, maxsize: int, on_evict: Callable[[Entry], None]) -> None:
        super().__init__(maxsize)
        self._on_evict = on_evict
        order = getattr(self, "_LRUCache__order", None)
        self._order: OrderedDict[object, None] | None = (
            order if isinstance(order, OrderedDict) else None
        )

    def popitem(self) -> tuple[object, Entry]:
        """Evict the least recently used entry (called with the cache lock held)."""
        order = self._order
        if order is None:  # unknown cachetools internals: touches take the lock (``toucher``)
            key, entry = super().popitem()
        else:  # one atomic call, safe against lock-free touches (no iterator to invalidate)
            key = order.popitem(last=False)[0]
            entry = Cache.__getitem__(self, key)
            Cache.__delitem__(self, key)
        self._on_evict(entry)
        return key, entry

    def holds(self, entry: Entry) -> bool:
        """Whether ``entry`` itself (not an equal rebuild of it) is stored; no LRU refresh."""
        return entry.key in self and Cache.__getitem__(self, entry.key) is entry

    def toucher(self, lock: threading.Lock) -> Callable[[object], object]:
        """A lock-free "refresh LRU position of key" (raises ``KeyError`` when absent).

        cachetools keeps LRU order in a private ``OrderedDict``; moving a key to its end is one
        atomic C call. Should that change, the public ``__getitem__`` is used under ``lock``.
        """
        if self._order is not None:
            return self._order.move_to_end
        getitem = self.__getitem__

        def touch(key: object) -> object:
            with lock:
                return getitem(key)

        return touch


class CompileCache:
    """LRU of ``Entry`` by key, plus ``id(schema) -> (schema, Entry)`` aliases.

    ``hits`` here counts hash hits; identity hits are counted lock-free by the validator, which
    adds them in ``JsonSchemaArgumentValidator.cache_info``.
    """

    def __init__(self, size: int, max_bytes: int = 1 << 62) -> None:
        self.lock = threading.Lock()
        self.max_bytes = max_bytes
        self.bytes = 0
        self.by_id: dict[int, tuple[object, Entry]] = {}
        self.hits = 0
        self.misses = 0
        self.compiles = 0
        self._lru = _Lru(size, self._drop_aliases)
        self.touch = self._lru.toucher(self.lock)

    def lookup(self, key: object) -> Entry | None:
        """The entry stored under ``key`` (refreshing it), counted as a hit, or ``None``."""
        with self.lock:
            entry = self._lru.get(key)
            if entry is not None:
                self.hits += 1
            return entry

    def store(self, entry: Entry, *, keep: bool = True) -> Entry:
        """Insert a freshly built entry (a racing thread's equal entry wins).

        ``keep=False`` counts the miss but caches nothing (an outcome that is not the schema's).
        """
        with self.lock:
            self.misses += 1
            existing = self._lru.get(entry.key)
            if existing is not None:
                return existing
            if keep and entry.cost <= self.max_bytes:
                self._lru[entry.key] = entry
                self.bytes += entry.cost
                while self.bytes > self.max_bytes:  # the bound in bytes, LRU first
                    self._lru.popitem()
            return entry

    def alias(self, schema: object, entry: Entry, size: int = 0, *, weak: bool = False) -> None:
        """Remember ``schema`` by identity as another name for ``entry``; ``size`` (its
        ``retained_bytes``) counts in ``bytes`` while the alias lasts. ``weak``: hold only a
        weak reference (the schema is not kept alive; a dead one never matches again).

        Only while ``entry`` itself is stored: if it was evicted (and maybe rebuilt under the same
        key) since it was looked up, an alias to it would never be dropped.
        """
        with self.lock:
            if not self._lru.holds(entry):
                return
            marker = id(schema)
            current = self.by_id.get(marker)
            if current is not None and names(current[0], schema) and current[1] is entry:
                return  # threads that missed on one schema together alias it once
            self.by_id[marker] = (weakref.ref(schema) if weak else schema, entry)
            entry.aliases.append(marker)
            entry.alias_bytes[marker] = size
            self.bytes += size
            if len(entry.aliases) > MAX_ALIASES:
                self._forget(entry.aliases.pop(0), entry)
            while self.bytes > self.max_bytes and len(self._lru):  # LRU first, as in ``store``
                self._lru.popitem()

    def info(self) -> CacheInfo:
        """Current counters and size."""
        with self.lock:
            return CacheInfo(self.hits, self.misses, self.compiles, len(self._lru))

    def _drop_aliases(self, entry: Entry) -> None:
        self.bytes -= entry.cost
        for marker in list(entry.aliases):
            self._forget(marker, entry)
        entry.aliases.clear()

    def _forget(self, marker: int, entry: Entry) -> None:
        self.bytes -= entry.alias_bytes.pop(marker, 0)
        # the schema may have been re-aliased to another entry since: leave that alias alone
        alias = self.by_id.get(marker)
        if alias is not None and alias[1] is entry:
            del self.by_id[marker]


WEAK_ALIAS_BYTES: Final = 128
"""What a weak alias holds: the reference and its ``by_id`` slot."""


def names(target: object, schema: object) -> bool:
    """Whether an alias's target (the schema, or a weak reference to it) is ``schema``."""
    return target is schema or (type(target) is weakref.ref and target() is schema)


_JSON_SCALARS: Final = frozenset({str, int, float})
_EMPTY: Final = frozenset({bool, type(None)})


def retained_bytes(schema: object, limit: int) -> int | None:
    """What keeping ``schema`` alive costs in bytes, or ``None`` when over ``limit``.

    ``sys.getsizeof`` of every object reachable from it (a str counts 1, 2 or 4 bytes per
    character; a shared object counts each time it is reached): JSON containers by their
    members, anything else (a subclass or ``Mapping`` carrying state no JSON walk sees) by
    everything the garbage collector says it references, classes and modules excepted (shared by
    the process, not held by the schema). Bounded: the walk stops once past ``limit``.
    """
    total = 0
    stack = [schema]
    pop, push, size_of, referents = stack.pop, stack.append, sys.getsizeof, gc.get_referents
    while stack:
        node = pop()
        kind = type(node)
        if kind in _EMPTY:
            continue
        total += size_of(node)  # a container's own size grows with its length: checked first
        if total > limit:
            return None
        if kind is dict:
            for key, item in node.items():  # type: ignore[attr-defined]
                push(key)
                push(item)
        elif kind is list:
            stack.extend(node)  # type: ignore[arg-type]
        elif kind not in _JSON_SCALARS:
            stack.extend([r for r in referents(node) if not isinstance(r, type | ModuleType)])
    return total
