"""The compile cache: identity first, canonical hash on a miss, LRU, no schema walk on a hit."""

from __future__ import annotations

import ast
import copy
import gc
import itertools
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from prism.conformance._rows_jsonschema import CountingSchema as _Counting
from prism.jsonschema import (
    CacheInfo,
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    _fastjsonschema,
)
from prism.jsonschema._cache import MAX_ALIASES, CompileCache, Entry


def _schema(n: int) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{n}": {"type": "integer"}}}


def test_cache_info_is_a_named_tuple(validator: JsonSchemaArgumentValidator) -> None:
    info = validator.cache_info()
    assert isinstance(info, CacheInfo)
    assert isinstance(info, tuple)
    assert info == CacheInfo(hits=0, misses=0, compiles=0, size=0)
    assert info._fields == ("hits", "misses", "compiles", "size")


def test_second_call_neither_compiles_nor_walks(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
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
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
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
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, cache_size=2)
    )
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
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, cache_size=2)
    )
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
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, cache_size=4)
    )
    for n in range(200):
        validator.validate(_schema(n % 6), {})
    assert validator.cache_info().size == 4
    assert len(validator._cache.by_id) <= 4 * 8


def test_identity_aliases_keep_the_schema_alive(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    validator.validate(_schema(1), {"p1": 1})  # the temporary is kept by its alias
    validator.validate(_schema(2), {"p2": "x"})  # so its id cannot be reused by this one
    assert validator.cache_info().compiles == 2
    assert not validator.validate(_schema(2), {"p2": "x"}).ok


@contextmanager
def _gil_churn() -> Iterator[None]:
    """Switch threads as often as possible, inside GC pauses too (e.g. in the middle of a parse).

    Reproduces what a busy process does now and then: without it these races stay rare here.
    """

    def give_up_the_gil(phase: str, info: dict[str, int]) -> None:
        time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    gc.callbacks.append(give_up_the_gil)
    try:
        yield
    finally:
        gc.callbacks.remove(give_up_the_gil)
        sys.setswitchinterval(interval)


def _run_threads(work: Callable[[int], None], count: int, deadline: float = 60.0) -> None:
    """Run ``work(k)`` in ``count`` churning threads; fail on a hang or any worker exception."""
    errors: list[str] = []

    def guarded(k: int) -> None:
        try:
            work(k)
        except BaseException:
            errors.append(traceback.format_exc())

    threads = [threading.Thread(target=guarded, args=(k,), daemon=True) for k in range(count)]
    with _gil_churn():
        for thread in threads:
            thread.start()
        end = time.monotonic() + deadline
        for thread in threads:
            thread.join(max(0.0, end - time.monotonic()))
    hung = [thread.name for thread in threads if thread.is_alive()]
    assert not hung, f"workers still running after {deadline} s: {hung}"
    assert not errors, f"{len(errors)} worker(s) raised; the first:\n{errors[0]}"


def _assert_consistent(validator: JsonSchemaArgumentValidator, calls: int, size: int) -> None:
    """Counters add up, the LRU is bounded, every identity alias names a stored entry."""
    info = validator.cache_info()
    assert info.size <= size, info
    assert info.compiles == info.misses, info  # valid schemas only: every miss compiled once
    if getattr(sys, "_is_gil_enabled", lambda: True)():  # hits may undercount without a GIL
        assert info.hits + info.misses == calls, info
    cache = validator._cache
    for marker, (schema, entry) in cache.by_id.items():
        assert marker == id(schema)
        assert cache._lru.holds(entry), f"alias to an evicted entry {entry.key!r}: never dropped"
        assert entry.aliases.count(marker) == 1, entry.aliases


def test_concurrent_threads_share_one_cache(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, cache_size=3)
    )
    schemas = [_schema(n) for n in range(5)]
    wrong: list[str] = []
    rounds, workers = 150, 4

    def work(offset: int) -> None:
        for i in range(rounds):
            n = (i + offset) % 5
            good = validator.validate(schemas[n], {f"p{n}": 1})
            bad = validator.validate(schemas[n], {f"p{n}": "x"})
            if not good.ok or bad.ok:
                wrong.append(f"schema {n}: {good.errors or bad}")

    _run_threads(work, workers)
    assert not wrong, f"{len(wrong)} wrong results, e.g. {wrong[:2]}"
    _assert_consistent(validator, calls=workers * rounds * 2, size=3)
    assert len(validator._cache.by_id) <= 5


def test_racing_compiles_never_reject_a_valid_schema(engine: str) -> None:
    # CPython < 3.11.8 / 3.12.2 share one AST-constructor counter per interpreter (gh-106905):
    # unserialized, parses racing in threads failed and the failure was cached as "rejected".
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, cache_size=4)
    )
    wrong: list[str] = []
    per_thread, workers = 20, 4

    def work(k: int) -> None:
        for i in range(per_thread):
            name = f"t{k}_{i}"
            schema = {"type": "object", "properties": {name: {"type": "integer"}}}
            good = validator.validate(schema, {name: 1})
            bad = validator.validate(schema, {name: "x"})
            if not good.ok or bad.ok:
                wrong.append(f"{name}: {good.errors or bad}")

    _run_threads(work, workers)
    assert not wrong, f"{len(wrong)} wrong results, e.g. {wrong[:2]}"
    _assert_consistent(validator, calls=workers * per_thread * 2, size=4)


def test_eviction_survives_a_lock_free_touch_after_every_step() -> None:
    # A hit refreshes LRU order without the lock, so it may land between any two C calls of an
    # eviction. Iterating the order there raised "OrderedDict mutated during iteration".
    cache = CompileCache(3)
    victim, *_ = (cache.store(Entry(key=key)) for key in (b"victim", b"a", b"b"))
    flip = itertools.cycle((b"a", b"b"))  # each touch really moves a key

    def touch_after_c_calls(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_return":
            cache.touch(next(flip))

    previous = sys.getprofile()
    sys.setprofile(touch_after_c_calls)
    try:
        newcomer = cache.store(Entry(key=b"new"))
    finally:
        sys.setprofile(previous)
    assert not cache._lru.holds(victim)
    assert cache._lru.holds(newcomer)
    assert cache.info().size == 3


def test_without_cachetools_internals_the_lru_still_works() -> None:
    cache = CompileCache(2)
    cache._lru._order = None  # as if a cachetools release renamed its private LRU order
    cache.touch = cache._lru.toucher(cache.lock)
    first, second = cache.store(Entry(key=b"a")), cache.store(Entry(key=b"b"))
    cache.touch(b"a")  # "b" is now least recently used
    third = cache.store(Entry(key=b"c"))
    assert [cache._lru.holds(e) for e in (first, second, third)] == [True, False, True]
    with pytest.raises(KeyError):
        cache.touch(b"b")


def test_an_entry_evicted_since_its_lookup_gets_no_alias() -> None:
    cache = CompileCache(1)
    looked_up = cache.store(Entry(key=b"k"))  # thread A found this entry...
    cache.store(Entry(key=b"other"))  # ...thread B evicted it...
    rebuilt = cache.store(Entry(key=b"k"))  # ...and thread C rebuilt one under the same key
    schema = _schema(1)
    cache.alias(schema, looked_up)  # an alias to an unstored entry would never be dropped
    assert id(schema) not in cache.by_id
    cache.alias(schema, rebuilt)
    assert cache.by_id[id(schema)] == (schema, rebuilt)


def test_one_schema_aliased_by_many_threads_at_once_keeps_its_alias() -> None:
    cache = CompileCache(2)
    entry = cache.store(Entry(key=b"k"))
    schema = _schema(1)
    for _ in range(MAX_ALIASES + 1):  # every thread that missed on it together
        cache.alias(schema, entry)
    assert cache.by_id[id(schema)] == (schema, entry)
    assert entry.aliases == [id(schema)]


def test_an_interpreter_fault_while_compiling_is_not_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parse = _fastjsonschema._parse
    calls: list[str] = []

    def faulty_once(source: str) -> ast.Module:
        calls.append(source)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=33, after=27)")
        return parse(source)

    monkeypatch.setattr(_fastjsonschema, "_parse", faulty_once)
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="fastjsonschema")
    )
    schema = _schema(1)
    first = validator.validate(schema, {"p1": 1})
    assert not first.ok
    assert "SystemError" in first.errors[0].message
    assert validator.cache_info() == CacheInfo(hits=0, misses=1, compiles=1, size=0)
    assert validator.validate(schema, {"p1": 1}).ok  # the schema was never at fault
    assert validator.cache_info() == CacheInfo(hits=0, misses=2, compiles=2, size=1)


def test_a_parse_raced_from_outside_the_lock_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    faults = iter([SystemError("AST constructor recursion depth mismatch")] * 2)

    def raced_twice(source: str, mode: str) -> ast.Module:
        for fault in faults:
            raise fault
        return ast.parse(source, mode=mode)

    monkeypatch.setattr(_fastjsonschema, "ast", SimpleNamespace(parse=raced_twice))
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="fastjsonschema")
    )
    assert validator.validate(_schema(1), {"p1": 1}).ok
    assert not validator.validate(_schema(1), {"p1": "x"}).ok
    assert validator.cache_info().compiles == 1
