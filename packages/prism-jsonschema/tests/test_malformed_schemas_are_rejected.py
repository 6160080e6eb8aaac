"""Malformed or dangerous schemas are rejected before compiling, with a reason naming the cause."""

from __future__ import annotations

from typing import Any

import pytest

from prism.conformance._rows_jsonschema import CountingSchema as _Counting
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def _rejected(validator: JsonSchemaArgumentValidator, schema: Any) -> str:
    result = validator.validate(schema, {})
    assert not result.ok
    (error,) = result.errors
    assert error.path is None
    assert error.message.startswith("tool parameter schema rejected: "), error.message
    return error.message


def _cyclic() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    return schema


class _Weird(int):
    def __repr__(self) -> str:
        return "__import__('os').system('false')"


REJECTED: list[tuple[str, Any, str]] = [
    ("remote ref", {"properties": {"a": {"$ref": "https://example.com/s.json"}}}, "fragment-local"),
    ("relative file ref", {"$ref": "other.json#/a"}, "fragment-local"),
    ("ref into a data position", {"const": {"type": "string"}, "$ref": "#/const"}, "never into"),
    ("ref into a dropped keyword", {"x-a": {"type": "string"}, "$ref": "#/x-a"}, "never into"),
    ("embedded resource", {"$defs": {"a": {"$id": "a.json"}}}, "embedded resource"),
    ("dynamic ref remote", {"$dynamicRef": "http://x/y#meta"}, "fragment-local"),
    ("unknown $schema", {"$schema": "http://example.com/my-meta"}, "not a known draft"),
    ("draft-03", {"$schema": "http://json-schema.org/draft-03/schema#"}, "not a known draft"),
    ("nan", {"maximum": float("nan")}, "not finite"),
    ("inf in enum", {"enum": [1, float("inf")]}, "not finite"),
    ("huge int", {"maximum": 10**400}, "too large"),
    ("python object cycle", _cyclic(), "cycle"),
    ("__proto__ key", {"properties": {"__proto__": {"type": "object"}}}, "__proto__"),
    ("__proto__ in data", {"const": {"a": {"__proto__": 1}}}, "__proto__"),
    ("bad pattern", {"pattern": "(unclosed"}, "not a supported regular expression"),
    ("bad patternProperties", {"patternProperties": {"[z-a]": {}}}, "not a supported regular"),
    ("backreference", {"pattern": "(a)\\1"}, "no backreferences or lookaround"),
    ("lookahead", {"patternProperties": {"^(?!x)": {}}}, "no backreferences or lookaround"),
    ("non-json value", {"const": {1, 2}}, "not JSON"),
    ("non-string key", {"properties": {1: {}}}, "non-string key"),
    ("unknown type", {"type": "strin"}, "'type'"),
    ("required not strings", {"required": [1]}, "'required'"),
    ("required duplicates", {"required": ["a", "a"]}, "unique"),
    ("minLength negative", {"minLength": -1}, "'minLength'"),
    ("minLength fractional", {"minLength": 1.5}, "'minLength'"),
    ("format not string", {"format": 5}, "'format'"),
    ("multipleOf zero", {"multipleOf": 0}, "'multipleOf'"),
    ("exclusiveMinimum bool in 2020", {"exclusiveMinimum": True}, "draft-04"),
    ("items array in 2020", {"items": [{}]}, "prefixItems"),
    ("anyOf empty", {"anyOf": []}, "non-empty array"),
    ("schema not object", {"properties": {"a": 3}}, "must be an object or a boolean"),
    ("properties not object", {"properties": []}, "'properties'"),
    ("boolean schema in draft-04",
     {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": True}},
     "draft-06"),
    ("custom int subclass", {"maxLength": _Weird(3), "enum": [[_Weird(1)]], "const": object()},
     "not JSON"),
    ("unresolvable local ref", {"$ref": "#/$defs/missing"}, "schema"),
]  # fmt: skip


@pytest.mark.parametrize(("why", "schema", "needle"), REJECTED, ids=[r[0] for r in REJECTED])
def test_rejected_with_the_cause(engine: str, why: str, schema: Any, needle: str) -> None:
    message = _rejected(
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine)), schema
    )
    assert needle in message, message


def test_custom_int_subclass_values_are_copied_as_plain_ints(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = {"type": "string", "maxLength": _Weird(3)}
    assert validator.validate(schema, "abc").ok
    assert not validator.validate(schema, "abcd").ok


def test_not_a_mapping_is_rejected(engine: str) -> None:
    message = _rejected(
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine)),
        ["type", "object"],
    )
    assert "JSON object" in message


def test_real_world_leniency_is_kept(engine: str) -> None:
    """Lessons: unknown formats, unknown keywords, properties without type, 2020-12 $schema."""
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {
            "when": {"format": "my-custom-format", "x-ui-widget": "calendar"},
            "n": {"minimum": 1},
        },
        "discriminator": {"propertyName": "kind"},
        "x-vendor": [1, {"nested": True}],
    }
    assert validator.validate(schema, {"when": "anything", "n": 2}).ok
    assert not validator.validate(schema, {"n": 0}).ok


def test_a_schema_refused_before_hashing_is_not_kept(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = _Counting({"properties": {"a": {"$ref": "http://example.com/x"}}})
    first = validator.validate(schema, {})
    reads = schema.reads
    assert reads > 0
    assert not first.ok
    for _ in range(3):
        assert validator.validate(schema, {"a": 1}) == first
    assert schema.reads == 4 * reads, "refused again by the same bounded walk, nothing held"
    assert validator.cache_info().compiles == 0
    assert validator.cache_info().size == 0


def test_engine_rejection_is_cached_by_content(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    first = validator.validate({"$ref": "#/$defs/missing"}, {})
    second = validator.validate({"$ref": "#/$defs/missing"}, {})
    assert not first.ok
    assert first == second
    info = validator.cache_info()
    assert info.compiles == 1
    assert info.hits == 1
    assert info.misses == 1
