"""fastjsonschema speaks draft-07: 2019-09/2020-12 keywords are lowered, or refused by name."""

from __future__ import annotations

from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

FAST = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="fastjsonschema"))
RS = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))


def _both(schema: Any, instance: Any) -> bool:
    fast, rs = FAST.validate(schema, instance), RS.validate(schema, instance)
    assert fast.ok == rs.ok, (schema, instance, fast.errors, rs.errors)
    return fast.ok


def test_ref_siblings_apply_in_2020_but_not_in_draft_07() -> None:
    defs = {"s": {"type": "string"}}
    assert not _both({"$ref": "#/$defs/s", "maxLength": 2, "$defs": defs}, "abc")
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/s",
              "maxLength": 2, "definitions": defs}  # fmt: skip
    assert _both(draft7, "abc")


def test_ref_with_existing_all_of_keeps_pointers_valid() -> None:
    schema = {
        "allOf": [{"minLength": 1}],
        "$ref": "#/allOf/0",
        "maxLength": 3,
    }
    assert _both(schema, "ab")
    assert not _both(schema, "")
    assert not _both(schema, "abcd")


def test_recursive_and_dynamic_refs_without_anchors_behave_like_ref() -> None:
    schema = {"type": "object", "properties": {"next": {"$dynamicRef": "#"}}, "required": ["v"]}
    assert FAST.validate(schema, {"v": 1, "next": {"v": 2}}).ok
    assert not FAST.validate(schema, {"v": 1, "next": {}}).ok


@pytest.mark.parametrize(
    "schema",
    [{"type": "array", "contains": {"type": "integer"}, "minContains": 2},
     {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False},
     {"$dynamicAnchor": "node", "properties": {"n": {"$dynamicRef": "#node"}}}],
)  # fmt: skip
def test_inexpressible_keywords_are_refused_by_name(schema: Any) -> None:
    result = FAST.validate(schema, {})
    (error,) = result.errors
    assert "engine='jsonschema-rs'" in error.message
    assert RS.validate(schema, {}).errors == () or RS.validate(schema, {}).ok in (True, False)


def test_unevaluated_true_is_harmless() -> None:
    schema = {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": True}
    assert _both(schema, {"b": 1})


def test_ref_into_lowered_items_is_refused() -> None:
    schema = {
        "type": "object",
        "properties": {
            "t": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
            "u": {"$ref": "#/properties/t/items"},
        },
    }
    (error,) = FAST.validate(schema, {}).errors
    assert "prefixItems" in error.message
    assert RS.validate(schema, {"u": 1}).ok


def test_content_keywords_are_annotations_on_both_engines() -> None:
    for draft in ("http://json-schema.org/draft-07/schema#", None):
        schema: dict[str, Any] = {"contentMediaType": "application/json",
                                  "contentEncoding": "base64"}  # fmt: skip
        if draft:
            schema["$schema"] = draft
        assert _both(schema, "{not json, not base64!")


def test_formats_are_annotations_unless_asked() -> None:
    schema = {"type": "string", "format": "email"}
    assert _both(schema, "not an email")
    for engine in ("fastjsonschema", "jsonschema-rs"):
        strict = JsonSchemaArgumentValidator(
            options=JsonSchemaValidatorOptions(engine=engine, validate_formats=True)
        )
        assert not strict.validate(schema, "not an email").ok
        assert strict.validate(schema, "a@example.org").ok


def test_schemas_are_not_mutated() -> None:
    schema = {
        "$id": "https://example.com/s.json",
        "prefixItems": [{"$ref": "#/$defs/a"}],
        "items": False,
        "$ref": "#/$defs/a",
        "minItems": 1,
        "$defs": {"a": {"type": ["string", "array"]}},
        "dependentRequired": {"x": ["y"]},
    }
    import copy

    before = copy.deepcopy(schema)
    for engine in ("fastjsonschema", "jsonschema-rs"):
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine)).validate(
            schema, ["a"]
        )
    assert schema == before
