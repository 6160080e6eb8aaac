"""Outside red-team round on issue 25: held attacks, kept as regression tests.

Every case goes through the public API only, on both engines; the `jsonschema` package is the
oracle. A case holds when Prism never says "valid" for a value the oracle calls invalid (a refused
schema or a stricter verdict is fail-closed), or, for the regex cases, when Prism follows ECMA-262
where Python's `re` (the oracle's engine) does not.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest
from anyio import fail_after as anyio_fail_after

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D19 = "https://json-schema.org/draft/2019-09/schema"


def _x(sub: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": sub}}


def _reference_valid(schema: dict[str, Any], value: Any, formats: bool = False) -> bool:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    return bool(cls(schema, format_checker=checker).is_valid(value))


# (name, schema, value): the oracle says INVALID for each.
_INVALID_BY_REFERENCE: list[tuple[str, dict[str, Any], Any]] = [
    # $ref siblings, pointers, escapes
    (
        "2020 $ref sibling applies",
        {
            "$defs": {"a": {"type": "object"}},
            "properties": {"x": {"$ref": "#/$defs/a", "maxProperties": 0}},
        },
        {"x": {"a": 1}},
    ),
    (
        "pointer ~1",
        {"$defs": {"a/b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a~1b"}}},
        {"x": 1},
    ),
    (
        "pointer ~0",
        {"$defs": {"a~b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a~0b"}}},
        {"x": 1},
    ),
    (
        "pointer ~01 is a literal ~1",
        {
            "$defs": {"a~1b": {"type": "string"}, "a/b": {}},
            "properties": {"x": {"$ref": "#/$defs/a~01b"}},
        },
        {"x": 1},
    ),
    (
        "percent-encoded space",
        {"$defs": {"a b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a%20b"}}},
        {"x": 1},
    ),
    (
        "percent-encoded %",
        {"$defs": {"a%b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a%25b"}}},
        {"x": 1},
    ),
    (
        "percent-encoded ~1",
        {"$defs": {"a/b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a%7E1b"}}},
        {"x": 1},
    ),
    (
        "empty final token",
        {"$defs": {"": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/"}}},
        {"x": 1},
    ),
    (
        "#/ to an empty key",
        {"type": "object", "": {"type": "string"}, "properties": {"x": {"$ref": "#/"}}},
        {"x": 1},
    ),
    (
        "array index 01",
        {
            "allOf": [{"type": "object"}, {"properties": {"y": {"type": "string"}}}],
            "properties": {"x": {"$ref": "#/allOf/01/properties/y"}},
        },
        {"x": 1},
    ),
    # $id / id / anchors in data or odd positions
    (
        "$id in unknown keyword",
        {
            "unk": {"$id": "http://x/y"},
            "$defs": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        },
        {"x": 1},
    ),
    (
        "$id as a property name",
        {
            "properties": {"$id": {"type": "string"}, "x": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"type": "string"}},
        },
        {"x": 1, "$id": "a"},
    ),
    (
        "draft-07 $id next to $ref",
        {
            "$schema": D7,
            "definitions": {"a": {"type": "string"}},
            "properties": {"x": {"$id": "http://e/x", "$ref": "#/definitions/a"}},
        },
        {"x": 1},
    ),
    (
        "root $id with empty fragment",
        {
            "$id": "http://e/r#",
            "$defs": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        },
        {"x": 1},
    ),
    (
        "root $id, absolute self ref",
        {
            "$id": "http://e/r.json",
            "$defs": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "http://e/r.json#/$defs/a"}},
        },
        {"x": 1},
    ),
    (
        "draft-04 id as a property",
        {
            "$schema": D4,
            "properties": {"id": {"type": "string"}, "x": {"$ref": "#/definitions/a"}},
            "definitions": {"a": {"type": "string"}},
        },
        {"x": 1, "id": "q"},
    ),
    (
        "definition named $id",
        {
            "$schema": D7,
            "definitions": {"$id": {"type": "integer"}, "a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/definitions/a"}},
        },
        {"x": 1},
    ),
    (
        "$dynamicAnchor inside enum",
        {"enum": [{"$dynamicAnchor": "a"}]},
        {"$dynamicAnchor": "a", "x": 1},
    ),
    (
        "draft-07 with $defs",
        {
            "$schema": D7,
            "$defs": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        },
        {"x": 1},
    ),
    (
        "2020 with definitions",
        {
            "definitions": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/definitions/a"}},
        },
        {"x": 1},
    ),
    (
        "$schema switched in a subschema",
        {
            "properties": {"x": {"$schema": D7, "$ref": "#/$defs/a", "minimum": 5}},
            "$defs": {"a": {}},
        },
        {"x": 1},
    ),
    (
        "draft-04 boolean exclusiveMaximum in a 2020 subschema",
        {"properties": {"x": {"$schema": D4, "maximum": 5, "exclusiveMaximum": True}}},
        {"x": 5},
    ),
    (
        "$recursiveRef without anchor",
        {"$schema": D19, "properties": {"x": {"$recursiveRef": "#"}}, "type": "object"},
        {"x": 1},
    ),
    (
        "$dynamicRef without anchor",
        {"properties": {"x": {"$dynamicRef": "#"}}, "type": "object"},
        {"x": 1},
    ),
    (
        "$dynamicRef to a pointer",
        {"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$dynamicRef": "#/$defs/a"}}},
        {"x": 1},
    ),
    # numbers
    ("draft-04 1.0 is not an integer", {"$schema": D4, **_x({"type": "integer"})}, {"x": 1.0}),
    ("True is not an integer", _x({"type": "integer"}), {"x": True}),
    ("False is not a number", _x({"type": "number"}), {"x": False}),
    ("True not in enum [1]", _x({"enum": [1]}), {"x": True}),
    ("False is not const 0", _x({"const": 0}), {"x": False}),
    ("1 is not const true", _x({"const": True}), {"x": 1}),
    ("[1, 1.0] not unique", _x({"uniqueItems": True}), {"x": [1, 1.0]}),
    ("nested 1 and 1.0 not unique", _x({"uniqueItems": True}), {"x": [{"a": 1}, {"a": 1.0}]}),
    ("[True] is not const [1]", _x({"const": [1]}), {"x": [True]}),
    ("{a: False} not in enum [{a: 0}]", _x({"enum": [{"a": 0}]}), {"x": {"a": False}}),
    ("huge int over maximum", _x({"maximum": 10}), {"x": 10**300}),
    ("2**63 + 1 over 2**63", _x({"maximum": 2**63}), {"x": 2**63 + 1}),
    ("2**64 + 1 over 2**64", _x({"maximum": 2**64}), {"x": 2**64 + 1}),
    ("2**53 + 1 over float 2**53", _x({"maximum": 9007199254740992.0}), {"x": 9007199254740993}),
    (
        "float 2**53 not below int 2**53",
        _x({"exclusiveMaximum": 9007199254740992}),
        {"x": 9007199254740992.0},
    ),
    (
        "-(2**53 + 1) under float -(2**53)",
        _x({"minimum": -9007199254740992.0}),
        {"x": -9007199254740993},
    ),
    ("1e20 + 1 over float 1e20", _x({"maximum": 1e20}), {"x": 100000000000000000001}),
    (
        "u64 max not above itself",
        _x({"exclusiveMinimum": 18446744073709551615}),
        {"x": 18446744073709551615},
    ),
    (
        "i64 min + 1 over i64 min",
        _x({"maximum": -9223372036854775808}),
        {"x": -9223372036854775807},
    ),
    ("const 2**53 + 1 vs float 2**53", _x({"const": 9007199254740993}), {"x": 9007199254740992.0}),
    ("const float 2**53 vs 2**53 + 1", _x({"const": 9007199254740992.0}), {"x": 9007199254740993}),
    (
        "0.30000000000000004 not a multiple of 0.1",
        _x({"multipleOf": 0.1}),
        {"x": 0.30000000000000004},
    ),
    ("0.075 not a multiple of 0.01", _x({"multipleOf": 0.01}), {"x": 0.075}),
    ("10**200 + 1 not a multiple of 3", _x({"multipleOf": 3}), {"x": 10**200 + 1}),
    ("1.7e308 not a multiple of 1e308", _x({"multipleOf": 1e308}), {"x": 1.7e308}),
    ("2.0**1000 not a multiple of 7", _x({"multipleOf": 7}), {"x": 2.0**1000}),
    ("1.00000000000001 not a multiple of 1e-5", _x({"multipleOf": 1e-5}), {"x": 1.00000000000001}),
    ("2**100 + 1 not a multiple of 2", _x({"multipleOf": 2}), {"x": 2**100 + 1}),
    (
        "draft-04 boolean exclusiveMaximum",
        {"$schema": D4, **_x({"maximum": 5, "exclusiveMaximum": True})},
        {"x": 5},
    ),
    (
        "draft-04 boolean exclusiveMinimum, float",
        {"$schema": D4, **_x({"minimum": 5, "exclusiveMinimum": True})},
        {"x": 5.0},
    ),
    # strings and patterns where ECMA-262 and Python's re agree
    ("\\S and NBSP", _x({"type": "string", "pattern": r"^\S+$"}), {"x": "\u00a0"}),
    ("\\S and U+2028", _x({"type": "string", "pattern": r"^\S+$"}), {"x": "\u2028"}),
    ("\\S and VT", _x({"type": "string", "pattern": r"^\S+$"}), {"x": "\v"}),
    ("[^\\s] and U+3000", _x({"type": "string", "pattern": r"^[^\s]+$"}), {"x": "\u3000"}),
    ("[\\S] and NBSP", _x({"type": "string", "pattern": r"^[\S]+$"}), {"x": "\u00a0"}),
    ("[\\W] and e-acute", _x({"type": "string", "pattern": r"^[\W]+$"}), {"x": "é"}),
    ("[^\\d] and 5", _x({"type": "string", "pattern": r"^[^\d]+$"}), {"x": "5"}),
    (". and newline", _x({"type": "string", "pattern": r"^a.b$"}), {"x": "a\nb"}),
    ("\\A is not an ECMA anchor", _x({"type": "string", "pattern": r"\Aabc$"}), {"x": "Aabc"}),
    ("\\b before e-acute", _x({"type": "string", "pattern": r"^a\b"}), {"x": "aé"}),
    (
        ".. and one astral code point",
        _x({"type": "string", "pattern": r"^..$"}),
        {"x": "\U0001f600"},
    ),
    (
        "escaped surrogate pair",
        _x({"type": "string", "pattern": r"^\ud83d\ude00$"}),
        {"x": "\U0001f600"},
    ),
    ("[[:alpha:]] is not ECMA", _x({"type": "string", "pattern": r"^[[:alpha:]]$"}), {"x": "a"}),
    ("\\a is not ECMA", _x({"type": "string", "pattern": r"^\a$"}), {"x": "a"}),
    ("minLength counts code points", _x({"minLength": 2}), {"x": "\U0001f600"}),
    ("maxLength counts combining marks", _x({"maxLength": 1}), {"x": "e\u0301"}),
    ("maxLength of two lone surrogates", _x({"maxLength": 1}), {"x": "\ud83d\ude00"}),
    # applicators
    (
        "unevaluatedProperties",
        {"properties": {"a": {}}, "unevaluatedProperties": False},
        {"a": 1, "b": 2},
    ),
    (
        "unevaluatedProperties through allOf",
        {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False},
        {"a": 1, "b": 2},
    ),
    (
        "unevaluatedProperties through $ref",
        {
            "$ref": "#/$defs/a",
            "$defs": {"a": {"properties": {"a": {}}}},
            "unevaluatedProperties": False,
        },
        {"a": 1, "b": 2},
    ),
    (
        "unevaluatedProperties through if/then",
        {
            "if": {"properties": {"a": {"const": 1}}},
            "then": {"properties": {"b": {}}},
            "unevaluatedProperties": False,
        },
        {"a": 1, "b": 2, "c": 3},
    ),
    ("unevaluatedProperties nested", _x({"unevaluatedProperties": False}), {"x": {"q": 1}}),
    (
        "unevaluatedItems after prefixItems",
        _x({"prefixItems": [{}], "unevaluatedItems": False}),
        {"x": [1, 2]},
    ),
    (
        "unevaluatedItems with contains",
        _x({"contains": {"const": 1}, "unevaluatedItems": False}),
        {"x": [1, 2]},
    ),
    (
        "unevaluatedProperties with patternProperties",
        {"patternProperties": {"^a": {}}, "unevaluatedProperties": False},
        {"a": 1, "b": 2},
    ),
    (
        "unevaluatedProperties through dependentSchemas",
        {"dependentSchemas": {"a": {"properties": {"b": {}}}}, "unevaluatedProperties": False},
        {"a": 1, "c": 2},
    ),
    ("unevaluatedProperties as a schema", {"unevaluatedProperties": {"type": "string"}}, {"b": 1}),
    ("minContains", _x({"contains": {"const": 1}, "minContains": 2}), {"x": [1, 2]}),
    ("maxContains", _x({"contains": {"const": 1}, "maxContains": 1}), {"x": [1, 1]}),
    (
        "2019-09 minContains",
        {"$schema": D19, **_x({"contains": {"const": 1}, "minContains": 2})},
        {"x": [1]},
    ),
    ("dependentSchemas", {"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1}),
    ("dependentRequired", {"dependentRequired": {"a": ["b"]}}, {"a": 1}),
    ("draft-07 dependencies", {"$schema": D7, "dependencies": {"a": ["b"]}}, {"a": 1}),
    ("propertyNames maxLength", {"propertyNames": {"maxLength": 2}}, {"abc": 1}),
    ("propertyNames false", {"propertyNames": False}, {"a": 1}),
    ("propertyNames const", {"propertyNames": {"const": "a"}}, {"b": 1}),
    (
        "if/then",
        {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
        {"a": 1},
    ),
    (
        "if/else",
        {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
        {"d": 1},
    ),
    ("if false without then", {"if": False, "else": {"required": ["c"]}}, {"d": 1}),
    (
        "prefixItems and items false",
        _x({"prefixItems": [{"type": "string"}], "items": False}),
        {"x": ["a", 1]},
    ),
    (
        "2019-09 additionalItems",
        {"$schema": D19, **_x({"items": [{}], "additionalItems": False})},
        {"x": [1, 2]},
    ),
    (
        "$ref into prefixItems",
        {
            "properties": {
                "x": {"prefixItems": [{"type": "string"}]},
                "y": {"$ref": "#/properties/x/prefixItems/0"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into items after prefixItems",
        {
            "properties": {
                "x": {"prefixItems": [{}], "items": {"type": "string"}},
                "y": {"$ref": "#/properties/x/items"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into additionalItems",
        {
            "$schema": D19,
            "properties": {
                "x": {"items": [{}], "additionalItems": {"type": "string"}},
                "y": {"$ref": "#/properties/x/additionalItems"},
            },
        },
        {"y": 1},
    ),
    (
        "$ref into dependentSchemas",
        {
            "dependentSchemas": {"q": {"type": "string"}},
            "properties": {"y": {"$ref": "#/dependentSchemas/q"}},
        },
        {"y": 1},
    ),
    (
        "$ref into unevaluatedProperties",
        {
            "properties": {
                "z": {"unevaluatedProperties": {"type": "string"}},
                "y": {"$ref": "#/properties/z/unevaluatedProperties"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into contains",
        {
            "properties": {
                "z": {"contains": {"type": "string"}, "minContains": 1},
                "y": {"$ref": "#/properties/z/contains"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into contentSchema",
        {
            "properties": {
                "z": {"contentSchema": {"type": "string"}},
                "y": {"$ref": "#/properties/z/contentSchema"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into an unknown keyword",
        {"x-ext": {"type": "string"}, "properties": {"y": {"$ref": "#/x-ext"}}},
        {"y": 1},
    ),
    (
        "$ref into const",
        {"const": {"type": "string"}, "properties": {"y": {"$ref": "#/const"}}},
        {"y": 1},
    ),
    (
        "$ref into an enum item",
        {
            "properties": {
                "z": {"enum": [{"type": "string"}]},
                "y": {"$ref": "#/properties/z/enum/0"},
            }
        },
        {"y": 1},
    ),
    (
        "$ref into draft-07 dependencies",
        {
            "$schema": D7,
            "dependencies": {"q": {"type": "string"}},
            "properties": {"y": {"$ref": "#/dependencies/q"}},
        },
        {"y": 1},
    ),
    (
        "$ref into if",
        {"if": {"type": "string"}, "then": True, "properties": {"y": {"$ref": "#/if"}}},
        {"y": 1},
    ),
    (
        "$ref into a 2019-09 items array",
        {
            "$schema": D19,
            "properties": {
                "z": {"items": [{"type": "string"}]},
                "y": {"$ref": "#/properties/z/items/0"},
            },
        },
        {"y": 1},
    ),
]

_INVALID_BY_REFERENCE += [
    (
        "lone surrogate key, properties",
        {"properties": {"\ud800": {"type": "integer"}}},
        {"\ud800": "s"},
    ),
    (
        "lone surrogate key, additionalProperties",
        {"properties": {"a": {}}, "additionalProperties": False},
        {"\ud800": 1},
    ),
    (
        "lone surrogate key, patternProperties",
        {"patternProperties": {"^\ud800$": {"type": "integer"}}},
        {"\ud800": "s"},
    ),
    ("lone surrogates in enum", {"properties": {"x": {"enum": ["\ud800"]}}}, {"x": "\udc00"}),
    ("U+FFFD is not a lone surrogate", {"properties": {"x": {"const": "\ud800"}}}, {"x": "\ufffd"}),
    ("lone surrogate is not U+FFFD", {"properties": {"x": {"const": "\ufffd"}}}, {"x": "\ud800"}),
    ("NUL inside a key", {"properties": {"a\u0000b": {"type": "integer"}}}, {"a\u0000b": "s"}),
    ("required lone surrogate", {"required": ["\ud800"]}, {"\udc00": 1}),
    ("propertyNames and a lone surrogate", {"propertyNames": {"maxLength": 0}}, {"\ud800": 1}),
    (
        "unevaluatedProperties next to not",
        {
            "properties": {"a": {}},
            "not": {"properties": {"b": {}}, "required": ["c"]},
            "unevaluatedProperties": False,
        },
        {"a": 1, "b": 2},
    ),
    (
        "unevaluatedItems after items",
        _x({"prefixItems": [{}], "items": {"type": "integer"}, "unevaluatedItems": False}),
        {"x": [1, "s"]},
    ),
    (
        "$dynamicRef overridden by the outer scope",
        {
            "$id": "https://e/r",
            "$ref": "list",
            "$defs": {
                "items": {"$dynamicAnchor": "items", "type": "string"},
                "list": {
                    "$id": "list",
                    "type": "array",
                    "items": {"$dynamicRef": "#items"},
                    "$defs": {"items": {"$dynamicAnchor": "items"}},
                },
            },
        },
        [1],
    ),
    (
        "$anchor reference",
        {
            "$defs": {"a": {"$anchor": "foo", "type": "string"}},
            "properties": {"x": {"$ref": "#foo"}},
        },
        {"x": 1},
    ),
    (
        "$id-relative reference",
        {
            "$id": "https://e/r",
            "$defs": {"a": {"$id": "a.json", "type": "string"}},
            "properties": {"x": {"$ref": "a.json"}},
        },
        {"x": 1},
    ),
]

_FORMATS_INVALID_BY_REFERENCE: list[tuple[str, dict[str, Any], Any]] = [
    ("email", _x({"format": "email"}), {"x": "nope"}),
    ("date 02-30", _x({"format": "date"}), {"x": "2020-02-30"}),
    ("ipv4 leading zero", _x({"format": "ipv4"}), {"x": "01.1.1.1"}),
    ("ipv4 final newline", _x({"format": "ipv4"}), {"x": "1.1.1.1\n"}),
    ("uuid short", _x({"format": "uuid"}), {"x": "2eb8aa08-aa98-11ea-b4aa-73b441d1638"}),
    ("date final newline", _x({"format": "date"}), {"x": "2020-01-01\n"}),
    ("ipv6 final newline", _x({"format": "ipv6"}), {"x": "::1\n"}),
    ("ipv4 Arabic-Indic digit", _x({"format": "ipv4"}), {"x": "١.1.1.1"}),
    ("date Arabic-Indic digit", _x({"format": "date"}), {"x": "202٠-01-01"}),
    ("regex unbalanced", _x({"format": "regex"}), {"x": "(a"}),
]


def _verdict(validator: JsonSchemaArgumentValidator, schema: dict[str, Any], value: Any) -> str:
    result = validator.validate(schema, value)
    if result.ok:
        return "valid"
    return "refused" if any(e.path is None for e in result.errors) else "invalid"


@pytest.mark.parametrize(
    ("schema", "value"),
    [pytest.param(s, v, id=n) for n, s, v in _INVALID_BY_REFERENCE],
)
def test_no_value_the_reference_refuses_is_valid(
    engine: str, schema: dict[str, Any], value: Any
) -> None:
    assert not _reference_valid(schema, value)
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    assert _verdict(validator, schema, value) in {"invalid", "refused"}


@pytest.mark.parametrize(
    ("schema", "value"),
    [pytest.param(s, v, id=n) for n, s, v in _FORMATS_INVALID_BY_REFERENCE],
)
def test_no_format_the_reference_refuses_is_valid(
    engine: str, schema: dict[str, Any], value: Any
) -> None:
    assert not _reference_valid(schema, value, formats=True)
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=True)
    validator = JsonSchemaArgumentValidator(options=options)
    assert _verdict(validator, schema, value) in {"invalid", "refused"}


# Python's re (the oracle's engine) reads these classes as Unicode; ECMA-262, which JSON Schema
# names, reads \d and \w as ASCII, and with the u flag {,n} is a syntax error (so the schema is
# refused). Prism follows ECMA, as documented: these are NOT widenings, and the verdicts are
# pinned so a change is seen.
_ECMA_NOT_PYTHON: list[tuple[str, str, str, bool]] = [
    ("\\W matches e-acute", r"^\W+$", "é", True),
    ("\\D matches Arabic-Indic three", r"^\D+$", "٣", True),
    ("\\d does not match Arabic-Indic digits", r"^\d+$", "١٢٣", False),
    ("\\w does not match e-acute", r"^\w+$", "é", False),
    ("{,3} is refused, not literal", r"^a{,3}$", "a{,3}", False),
    ("{,3} is not a quantifier", r"^a{,3}$", "aa", False),
    ("$ is not before a final newline", r"^abc$", "abc\n", False),
    (". does not match CR", r"^a.b$", "a\rb", False),
    (". does not match U+2028", r"^a.b$", "a\u2028b", False),
    ("\\S does not match BOM", r"^\S+$", "\ufeff", False),
]


@pytest.mark.parametrize(
    ("pattern", "text", "ecma_valid"),
    [pytest.param(p, t, v, id=n) for n, p, t, v in _ECMA_NOT_PYTHON],
)
def test_patterns_follow_ecma_where_python_re_differs(
    engine: str, pattern: str, text: str, ecma_valid: bool
) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    result = validator.validate(_x({"type": "string", "pattern": pattern}), {"x": text})
    assert result.ok is ecma_valid


def test_patternproperties_digit_class_is_ascii(engine: str) -> None:
    schema = {"type": "object", "patternProperties": {r"^\d+$": {"type": "integer"}}}
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    assert validator.validate(schema, {"1": "s"}).ok is False
    assert validator.validate(schema, {"١": "s"}).ok is True  # ECMA: not a digit, not matched


# ---- (b) the handler sees exactly what was validated; (d) nothing escapes dispatch ----

_SCHEMA = {
    "type": "object",
    "properties": {"cmd": {"enum": ["ls"]}, "n": {"type": "integer", "maximum": 5}},
    "additionalProperties": False,
}


class _AlwaysEqual(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("ls")


class _CollidingKey(str):
    def __hash__(self) -> int:
        return 12345

    def __eq__(self, other: object) -> bool:
        return other is self


class _LyingDict(dict[str, Any]):
    def items(self) -> Any:
        return [("cmd", "ls")]

    def __getitem__(self, key: str) -> Any:
        return "ls"

    def keys(self) -> Any:
        return ["cmd"]

    def __iter__(self) -> Iterator[str]:
        return iter(["cmd"])


class _Small(enum.IntEnum):
    THREE = 3


class _FlippingMapping(Mapping[str, Any]):
    def __init__(self) -> None:
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        self.reads += 1
        return "ls" if self.reads == 1 else "rm -rf /"

    def __iter__(self) -> Iterator[str]:
        return iter(["cmd"])

    def __len__(self) -> int:
        return 1


def _pairs() -> Iterator[tuple[str, str]]:
    yield ("cmd", "ls")


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def __call__(self, args: Any, context: ToolExecutionContext) -> str:
        self.seen.append(args)
        return "ok"


def _exact(value: Any) -> bool:
    """Only exact builtin JSON types, all the way down."""
    if type(value) is dict:
        return all(type(k) is str and _exact(v) for k, v in value.items())
    if type(value) is list:
        return all(_exact(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


@pytest.mark.anyio
@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"cmd": _AlwaysEqual("rm -rf /")}, id="str-subclass-equal-to-everything"),
        pytest.param(
            {_CollidingKey("cmd"): "rm", "cmd": "ls"}, id="colliding-str-subclass-key-first"
        ),
        pytest.param(
            {"cmd": "ls", _CollidingKey("cmd"): "rm"}, id="colliding-str-subclass-key-last"
        ),
        pytest.param(_LyingDict(cmd="rm -rf /"), id="dict-subclass-lying-items"),
        pytest.param({"n": _Small.THREE}, id="intenum"),
        pytest.param({"n": True}, id="bool-as-int"),
        pytest.param(_FlippingMapping(), id="mapping-flipping-on-second-read"),
        pytest.param({"cmd": ("ls",)}, id="tuple"),
        pytest.param(_pairs(), id="generator"),
        pytest.param({"n": 10**700}, id="huge-int"),
        pytest.param({"n": float("nan")}, id="nan"),
    ],
)
async def test_the_handler_gets_exactly_the_validated_canonical_value(
    engine: str, arguments: Any
) -> None:
    handler = _Recorder()
    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=_SCHEMA)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    result = await dispatch_tool_call(
        ToolCall(id="1", name="t", arguments=arguments),
        registry=registry,
        gates=ToolGates(validator=validate),
    )
    for seen in handler.seen:
        assert _exact(seen)
        assert jsonschema.Draft202012Validator(_SCHEMA).is_valid(seen)
        assert seen.get("cmd", "ls") == "ls"
    assert (result.error is None) == bool(handler.seen)


@pytest.mark.anyio
async def test_mutating_the_original_after_dispatch_starts_does_not_reach_the_handler(
    engine: str,
) -> None:
    original: dict[str, Any] = {"cmd": "ls"}
    seen: list[Any] = []

    async def handler(args: Any, context: ToolExecutionContext) -> str:
        original["cmd"] = "rm -rf /"  # the caller's object, shared by reference
        seen.append(args)
        return "ok"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=_SCHEMA)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    result = await dispatch_tool_call(
        ToolCall(id="1", name="t", arguments=original),
        registry=registry,
        gates=ToolGates(validator=validate),
    )
    assert result.error is None
    assert seen == [{"cmd": "ls"}]
    assert seen[0] is not original


class _RaisingArguments(ToolCall):
    @property  # type: ignore[misc]
    def arguments(self) -> Any:
        raise RuntimeError("boom")


class _FlippingArguments(ToolCall):
    reads = 0

    @property  # type: ignore[misc]
    def arguments(self) -> Any:
        type(self).reads += 1
        return {"cmd": "ls"} if type(self).reads == 1 else {"cmd": "rm -rf /"}


@pytest.mark.anyio
async def test_toolcall_attribute_tricks_keep_one_result_per_call(engine: str) -> None:
    handler = _Recorder()
    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=_SCHEMA)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    flipping = type("_Flip", (_FlippingArguments,), {"reads": 0})
    calls = [
        _RaisingArguments(id="a", name="t", arguments={}),
        flipping(id="b", name="t", arguments={}),
        ToolCall(id="c", name="t", arguments={"cmd": "ls"}),
    ]
    results = await dispatch_tool_calls_in_order(
        calls, registry=registry, gates=ToolGates(validator=validate)
    )
    assert len(results) == 3
    assert results[0].error is not None
    assert results[0].error.code == "invalid_arguments"
    assert results[1].error is None
    assert results[2].error is None
    assert handler.seen == [{"cmd": "ls"}, {"cmd": "ls"}]


def test_unique_items_is_not_quadratic(engine: str) -> None:
    """A duplicate at the very end of 10,000 objects: a naive pairwise check is 50M compares."""
    schema = _x({"type": "array", "uniqueItems": True})
    value = {"x": [{"a": i} for i in range(9_999)] + [{"a": 9_998}]}
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    validator.validate(schema, {"x": []})
    start = time.process_time()
    result = validator.validate(schema, value)
    assert not result.ok
    assert time.process_time() - start < scaled(0.5)


class _RaisingSchema(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        return 1


class _FlippingType(Mapping[str, Any]):
    """A subschema whose ``type`` alternates on every read."""

    def __init__(self) -> None:
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        self.reads += 1
        return "integer" if self.reads % 2 else "string"

    def __iter__(self) -> Iterator[str]:
        return iter(["type"])

    def __len__(self) -> int:
        return 1


def _schema_dag(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "integer"}
    for _ in range(levels):
        node = {"allOf": [node, node]}
    return {"type": "object", "properties": {"x": node}}


def _ref_doubling(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {"d0": {"type": "integer"}}
    for i in range(1, levels):
        twice = [{"$ref": f"#/$defs/d{i - 1}"}, {"$ref": f"#/$defs/d{i - 1}"}]
        defs[f"d{i}"] = {"allOf": twice}
    return {"$defs": defs, "properties": {"x": {"$ref": f"#/$defs/d{levels - 1}"}}}


@pytest.mark.anyio
@pytest.mark.parametrize(
    "parameters",
    [
        pytest.param(_RaisingSchema(), id="schema-mapping-that-raises"),
        pytest.param(_schema_dag(40), id="python-shared-schema-dag-2**40"),
        pytest.param(_ref_doubling(40), id="ref-doubling-2**40"),
    ],
)
async def test_hostile_schema_objects_block_every_call_quickly(
    engine: str, parameters: Any
) -> None:
    handler = _Recorder()
    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=parameters)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    calls = [
        ToolCall(id="a", name="t", arguments={"x": 1}),
        ToolCall(id="b", name="t", arguments={}),
    ]
    with anyio_fail_after(scaled(10)):
        results = await dispatch_tool_calls_in_order(
            calls, registry=registry, gates=ToolGates(validator=validate)
        )
    assert len(results) == 2
    for result in results:
        assert result.error is not None
        assert result.error.code == "validation_failed"
        assert "schema rejected" in result.error.message
    assert handler.seen == []


@pytest.mark.anyio
async def test_a_schema_is_read_once_per_validator(engine: str) -> None:
    handler = _Recorder()
    parameters = {"type": "object", "properties": {"x": _FlippingType()}}
    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=parameters)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    verdicts = []
    for value in (1, "s", 1, "s"):
        call = ToolCall(id="a", name="t", arguments={"x": value})
        result = await dispatch_tool_call(
            call, registry=registry, gates=ToolGates(validator=validate)
        )
        verdicts.append(result.error is None)
    assert verdicts in ([True, False, True, False], [False, True, False, True])
