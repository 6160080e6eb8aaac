"""Each schema bound: a schema exactly at the bound compiles, one above is rejected by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def _rejection(validator: JsonSchemaArgumentValidator, schema: Any) -> str | None:
    """The rejection message, or ``None`` when the schema compiled (whatever the outcome)."""
    result = validator.validate(schema, {})
    rejected = [e for e in result.errors if e.message.startswith("tool parameter schema rejected")]
    if not rejected:
        return None
    assert len(result.errors) == 1
    assert rejected[0].path is None
    return rejected[0].message


def _compact_size(schema: Any) -> int:
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode())


@pytest.mark.parametrize("cap", [64, 1_000, 4_096])
def test_max_schema_bytes(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_schema_bytes=cap)
    )
    at_cap = {"description": "é" + "x" * (cap - 20)}  # é is two bytes in UTF-8
    assert _compact_size(at_cap) == cap
    assert _rejection(validator, at_cap) is None
    above = {"description": at_cap["description"] + "x"}
    message = _rejection(validator, above)
    assert message is not None
    assert f"max_schema_bytes={cap}" in message


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("cap", [3, 16, 64])
def test_max_schema_depth(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_schema_depth=cap)
    )
    assert _rejection(validator, {"const": _nested(cap - 1)}) is None
    message = _rejection(validator, {"const": _nested(cap)})
    assert message is not None
    assert f"max_schema_depth={cap}" in message


def test_max_schema_depth_through_properties(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_schema_depth=7)
    )
    schema: Any = {"type": "string"}
    for _ in range(3):
        schema = {"properties": {"a": schema}}
    assert _rejection(validator, schema) is None  # 3 x (schema + properties) + leaf = 7
    message = _rejection(validator, {"properties": {"a": schema}})
    assert message is not None
    assert "#/properties/a/properties/a/properties/a/properties" in message


@pytest.mark.parametrize("cap", [10, 500])
def test_max_schema_nodes(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_schema_nodes=cap)
    )
    assert _rejection(validator, {"enum": list(range(cap - 2))}) is None  # root + list + items
    message = _rejection(validator, {"enum": list(range(cap - 1))})
    assert message is not None
    assert f"max_schema_nodes={cap}" in message


def _refs(count: int) -> dict[str, Any]:
    return {
        "$defs": {"s": {"type": "string"}},
        "properties": {f"p{i}": {"$ref": "#/$defs/s"} for i in range(count)},
    }


@pytest.mark.parametrize("cap", [1, 40])
def test_max_refs(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_refs=cap)
    )
    assert _rejection(validator, _refs(cap)) is None
    assert not validator.validate(_refs(cap), {"p0": 1}).ok
    message = _rejection(validator, _refs(cap + 1))
    assert message is not None
    assert f"max_refs={cap}" in message


@pytest.mark.parametrize("cap", [1, 300])
def test_max_pattern_length(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_pattern_length=cap)
    )
    assert _rejection(validator, {"pattern": "a" * cap}) is None
    message = _rejection(validator, {"pattern": "a" * (cap + 1)})
    assert message is not None
    assert f"max_pattern_length={cap}" in message
    assert _rejection(validator, {"patternProperties": {"b" * cap: {}}}) is None
    message = _rejection(validator, {"patternProperties": {"b" * (cap + 1): {}}})
    assert message is not None
    assert "#/patternProperties/" in message


def test_default_bounds_accept_a_large_realistic_schema(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    properties = {f"field_{i}": {"type": "string", "maxLength": 100} for i in range(900)}
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    assert validator.validate(schema, {"field_1": "x"}).ok
    assert not validator.validate(schema, {"field_1": 1}).ok
