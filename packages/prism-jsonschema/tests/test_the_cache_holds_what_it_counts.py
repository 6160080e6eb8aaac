"""The compile cache bounds what it really holds: rejected schemas are remembered by hash only
(never the schema object), and compiled entries stay near their byte estimate (measured with
``tracemalloc``: the fastjsonschema engine's memory is all Python)."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from typing import Any

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def _big_rejected(index: int) -> dict[str, Any]:
    """About 60 KB that passes the walk and is refused when compiled (a ref into data)."""
    return {
        "const": {"type": "string"},
        "$ref": "#/const",
        "properties": {f"p{i}": {"description": f"{index}-{i}-" + "x" * 190} for i in range(300)},
    }


def _traced(action: Any) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        action()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_rejected_schemas_are_not_held(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))

    def reject_many() -> None:
        for index in range(60):  # 3.6 MB of schemas, each dropped by the caller
            result = validator.validate(_big_rejected(index), {})
            assert not result.ok
            assert "schema rejected" in result.errors[0].message

    held = _traced(reject_many)
    assert validator.cache_info().size == 60  # every rejection remembered, by its hash
    assert held < 500_000, f"the cache holds {held:,} bytes for 60 rejections"


def test_compiled_entries_stay_within_the_byte_bound() -> None:
    bound = 2_000_000
    options = JsonSchemaValidatorOptions(engine="fastjsonschema", max_cache_bytes=bound)

    def compile_many(validator: JsonSchemaArgumentValidator) -> None:
        # 12 entries of ~0.54 MB estimated each (~6.5 MB in all): the bound keeps 3 of them.
        # Larger schemas (150 properties, 40 compiles) held the same share of the bound, in 15x
        # the time.
        for index in range(12):
            schema = {
                "type": "object",
                "properties": {
                    f"p{i}_{index}": {"type": "string", "maxLength": i} for i in range(50)
                },
            }
            assert validator.validate(schema, {}).ok

    # A first validator warms what is process-wide and not the cache's (interned names, module
    # caches that earlier tests may or may not have filled): only the second one is measured.
    compile_many(JsonSchemaArgumentValidator(options=options))
    validator = JsonSchemaArgumentValidator(options=options)
    held = _traced(lambda: compile_many(validator))
    assert validator.cache_bytes() <= bound
    assert validator.cache_info().size < 12  # the bound evicted: what is measured is a full cache
    # the entries, plus the validator's own few objects
    assert held < bound * 5 // 4, f"the cache holds {held:,} bytes for a bound of {bound:,}"


def test_the_cache_holds_no_more_than_it_counts_when_schemas_carry_dropped_keywords(
    engine: str,
) -> None:
    """``default`` and unknown keywords are dropped unread, but each identity alias kept the
    caller's whole object alive: outside red team, round 2 measured 373 MiB held by a cache
    that counted 3 KiB. A schema object holding much more than its checked copy is no longer
    kept as an identity alias (every call takes the hash path instead)."""
    options = JsonSchemaValidatorOptions(engine=engine, max_cache_bytes=1 << 20)  # type: ignore[arg-type]
    validator = JsonSchemaArgumentValidator(options=options)
    validator.validate({"type": "object"}, {})  # process-wide caches warmed

    def rebuild_eight_times() -> None:  # equal schemas in new objects, as a host rebuilding
        for _ in range(8):
            schema: dict[str, Any] = {
                "type": "object",
                "default": "d" * 8_000_000,
                "x-blob": list(range(400_000)),
            }
            assert validator.validate(schema, {"a": 1}).ok
            assert validator.validate(schema, {"a": 1}).ok  # by hash: no compile
            del schema

    held = _traced(rebuild_eight_times)
    counted = validator.cache_bytes()
    assert counted <= 1 << 20
    assert held <= counted + (4 << 20), f"held {held >> 20} MiB, counted {counted >> 10} KiB"
    assert validator.cache_info().compiles == 1  # the warm-up: the rest are equal to it


def test_a_schema_with_a_small_default_is_still_a_hit_by_identity(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    )
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"days": {"type": "integer", "default": 1, "description": "how many"}},
        "default": {"days": 1},
    }
    assert validator.validate(schema, {"days": 2}).ok
    hits = validator.cache_info().hits
    assert validator.validate(schema, {"days": 3}).ok
    assert validator.cache_info().hits == hits + 1
    assert validator._cache.by_id[id(schema)][0] is schema


def test_an_identity_alias_counts_what_it_keeps_alive(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    base: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}}
    validator.validate(base, {})
    before = validator.cache_bytes()
    heavier = {**base, "description": "\U0001f600" * 4_000}  # 16 KB of astral text, dropped
    validator.validate(heavier, {})
    assert validator._cache.by_id[id(heavier)][0] is heavier  # kept, and counted in bytes
    assert validator.cache_bytes() - before >= 16_000


def test_a_schema_carrying_uncounted_weight_is_aliased_weakly(engine: str) -> None:
    class Tagged(dict[str, Any]):
        baggage: bytearray

    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = Tagged({"type": "object", "properties": {"a": {"type": "integer"}}})
    schema.baggage = bytearray(1 << 20)  # reachable from the schema, not JSON
    probe = weakref.ref(schema)
    assert not validator.validate(schema, {"a": "x"}).ok
    assert not validator.validate(schema, {"a": "x"}).ok
    assert validator.cache_info().hits == 1  # by identity, through the weak alias
    assert validator.cache_bytes() < 1 << 20
    del schema
    gc.collect()
    assert probe() is None  # the cache did not keep it alive
