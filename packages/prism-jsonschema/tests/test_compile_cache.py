"""The compile cache: identity first, canonical hash on a miss, LRU, no schema walk on a hit."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from prism.jsonschema import CacheInfo, JsonSchemaArgumentValidator


class _Counting(Mapping[str, Any]):
    """A schema that counts every read, to prove a cache hit does not walk it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        self.reads += 1
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        self.reads += 1
        return iter(self.data)

    def __len__(self) -> int:
        self.reads += 1
        return len(self.data)


def _schema(n: int) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{n}": {"type": "integer"}}}


def test_cache_info_is_a_named_tuple(validator: JsonSchemaArgumentValidator) -> None:
    info = validator.cache_info()
    assert isinstance(info, CacheInfo)
    assert isinstance(info, tuple)
    assert info == CacheInfo(hits=0, misses=0, compiles=0, size=0)
    assert info._fields == ("hits", "misses", "compiles", "size")


def test_second_call_neither_compiles_nor_walks(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine)
    schema = _Counting({"type": "object", "properties": {"a": {"type": "string"}}})
    assert validator.validate(schema, {"a": "x"}).ok
    assert validator.cache_info() == CacheInfo(hits=0, misses=1, compiles=1, size=1)
    reads = schema.reads
    for _ in range(5):
        assert validator.validate(schema, {"a": "y"}).ok
        assert not validator.validate(schema, {"a": 1}).ok
    assert schema.reads == reads
    assert validator.cache_info() == CacheInfo(hits=10, misses=1, compiles=1, size=1)


def test_equal_content_in_a_new_object_hits_by_hash(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine)
    first = _schema(1)
    validator.validate(first, {})
    same = copy.deepcopy(first)
    reordered = dict(reversed(list(first.items())))
    proxied = MappingProxyType(copy.deepcopy(first))
    for schema in (same, reordered, proxied):
        assert not validator.validate(schema, {"p1": "x"}).ok
    info = validator.cache_info()
    assert info.compiles == 1
    assert info.size == 1
    assert info.misses == 1
    assert info.hits == 3
    assert validator.validate(same, {"p1": 2}).ok  # now an identity hit
    assert validator.cache_info().hits == 4


def test_eviction_is_least_recently_used(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine, cache_size=2)
    a, b, c = _schema(1), _schema(2), _schema(3)
    validator.validate(a, {})
    validator.validate(b, {})
    validator.validate(a, {})  # identity hit refreshes a: b is now least recent
    validator.validate(c, {})  # evicts b
    assert validator.cache_info() == CacheInfo(hits=1, misses=3, compiles=3, size=2)
    validator.validate(a, {})
    validator.validate(c, {})
    assert validator.cache_info().compiles == 3
    validator.validate(b, {})  # b was evicted: compiled again, evicting a (least recent)
    assert validator.cache_info().compiles == 4
    validator.validate(c, {})
    assert validator.cache_info().compiles == 4
    validator.validate(a, {})
    assert validator.cache_info().compiles == 5


def test_hash_hit_refreshes_lru_order_too(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine, cache_size=2)
    validator.validate(_schema(1), {})
    validator.validate(_schema(2), {})
    validator.validate(_schema(1), {})  # new object, equal content: a hash hit refreshes 1
    validator.validate(_schema(3), {})  # evicts 2
    compiles = validator.cache_info().compiles
    validator.validate(_schema(1), {})
    assert validator.cache_info().compiles == compiles
    validator.validate(_schema(2), {})
    assert validator.cache_info().compiles == compiles + 1


def test_cache_stays_bounded_with_a_new_object_per_call(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine, cache_size=4)
    for n in range(200):
        validator.validate(_schema(n % 6), {})
    assert validator.cache_info().size == 4
    assert len(validator._cache.by_id) <= 4 * 8


def test_identity_aliases_keep_the_schema_alive(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine)
    validator.validate(_schema(1), {"p1": 1})  # the temporary is kept by its alias
    validator.validate(_schema(2), {"p2": "x"})  # so its id cannot be reused by this one
    assert validator.cache_info().compiles == 2
    assert not validator.validate(_schema(2), {"p2": "x"}).ok


def test_concurrent_threads_share_one_cache(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(engine=engine, cache_size=3)
    schemas = [_schema(n) for n in range(5)]
    failures: list[str] = []

    def worker(offset: int) -> None:
        for i in range(300):
            n = (i + offset) % 5
            ok = validator.validate(schemas[n], {f"p{n}": 1}).ok
            bad = validator.validate(schemas[n], {f"p{n}": "x"}).ok
            if not ok or bad:
                failures.append(f"schema {n}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    assert validator.cache_info().size <= 3
