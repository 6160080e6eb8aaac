"""The compile budget refuses costly schemas before compiling; the cache is bounded in bytes."""

from __future__ import annotations

import json
from typing import Any

import prism.jsonschema._validator as validator_module
from prism.jsonschema import HARD_CAPS, JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def _enum(items: int) -> dict[str, Any]:
    return {"properties": {"e": {"enum": [f"value-{i:06d}" for i in range(items)]}}}


def _properties(count: int) -> dict[str, Any]:
    return {"properties": {f"property_{i:05d}": {"type": "string"} for i in range(count)}}


def test_a_costly_schema_is_refused_before_any_compile(engine: str, monkeypatch: Any) -> None:
    compiled: list[object] = []
    real = getattr(validator_module, "compile_checked")  # noqa: B009

    def counting(*args: Any) -> Any:
        compiled.append(args)
        return real(*args)

    monkeypatch.setattr(validator_module, "compile_checked", counting)
    caps = {k: v for k, v in HARD_CAPS.items() if k not in ("max_compile_cost", "cache_size")}
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, **caps)
    )
    for schema in (_enum(60_000), _properties(2_000) | {"$defs": {"big": _enum(20_000)}}):
        result = validator.validate(schema, {})
        assert not result.ok
        assert "max_compile_cost" in result.errors[0].message
    assert compiled == []


def test_the_budget_weighs_bytes_not_nodes() -> None:
    few_nodes_many_bytes = {"properties": {"e": {"enum": ["x" * 9_000] * 10}}}
    assert len(json.dumps(few_nodes_many_bytes)) > 90_000
    result = JsonSchemaArgumentValidator().validate(few_nodes_many_bytes, {})
    assert "max_compile_cost" in result.errors[0].message
    assert (
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
        .validate(few_nodes_many_bytes, {})
        .ok
    )


def test_the_cache_stays_within_its_byte_bound(engine: str) -> None:
    bound = 4_000_000
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_cache_bytes=bound)
    )
    for index in range(40):
        schema = _properties(100) | {"title": f"schema {index}"}
        assert validator.validate(schema, {}).ok
        assert validator.cache_bytes() <= bound
    info = validator.cache_info()
    assert info.compiles == 40
    assert 0 < info.size < 40


def test_an_entry_larger_than_the_whole_cache_still_validates(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_cache_bytes=1_000)
    )
    schema = _properties(50)
    assert validator.validate(schema, {"property_00001": "x"}).ok
    assert not validator.validate(schema, {"property_00001": 1}).ok
    assert validator.cache_bytes() == 0
