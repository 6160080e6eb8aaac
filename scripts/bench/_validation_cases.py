"""The schemas and instances the validation bench measures: three realistic sizes and the
worst legal inputs (at the default bounds and at the hard caps)."""

from __future__ import annotations

import copy
from typing import Any

from prism.jsonschema import HARD_CAPS

__all__ = ["SIZES", "budget_cases", "large", "medium", "small", "worst_cases"]


def small() -> tuple[dict[str, Any], Any, Any]:
    """A typical tool: four scalar parameters."""
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 500},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "site": {"type": "string"},
            "safe": {"type": "boolean"},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    return schema, {"query": "prism", "limit": 10, "safe": True}, {"query": "prism", "limit": 99}


def _address() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "street": {"type": "string", "minLength": 1},
            "city": {"type": "string"},
            "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
            "country": {"enum": ["US", "DE", "FR", "GB"]},
        },
        "required": ["street", "city", "country"],
        "additionalProperties": False,
    }


def medium() -> tuple[dict[str, Any], Any, Any]:
    """An order form: nested objects, an array of objects, enums, a pattern, anyOf."""
    item = {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
            "quantity": {"type": "integer", "minimum": 1},
            "price": {"type": "number", "exclusiveMinimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        },
        "required": ["sku", "quantity"],
    }
    schema = {
        "type": "object",
        "properties": {
            "customer": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "email": {"type": "string", "format": "email"},
                    "billing": _address(),
                    "shipping": _address(),
                },
                "required": ["name", "billing"],
            },
            "items": {"type": "array", "items": item, "minItems": 1},
            "notes": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "priority": {"enum": ["low", "normal", "high"]},
        },
        "required": ["customer", "items"],
    }
    address = {"street": "1 Main St", "city": "Springfield", "zip": "12345", "country": "US"}
    valid = {
        "customer": {"name": "Ada", "email": "ada@example.org", "billing": address,
                     "shipping": address},
        "items": [{"sku": f"ABC-{1000 + i}", "quantity": i + 1, "price": 9.5, "tags": ["x"]}
                  for i in range(10)],
        "notes": None,
        "priority": "high",
    }  # fmt: skip
    invalid = copy.deepcopy(valid)
    invalid["items"][7]["sku"] = "abc-1"
    return schema, valid, invalid


def large() -> tuple[dict[str, Any], Any, Any]:
    """A $ref-heavy document: 40 $defs, an array of 100 records referencing them."""
    defs: dict[str, Any] = {f"Field{i}": {"type": "string", "maxLength": 64 + i} for i in range(30)}
    defs["Address"] = _address()
    defs["Money"] = {"type": "object", "properties": {"amount": {"type": "number"},
                                                      "currency": {"enum": ["EUR", "USD"]}},
                     "required": ["amount", "currency"]}  # fmt: skip
    defs["Record"] = {
        "type": "object",
        "properties": {
            **{f"f{i}": {"$ref": f"#/$defs/Field{i}"} for i in range(30)},
            "address": {"$ref": "#/$defs/Address"},
            "total": {"$ref": "#/$defs/Money"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Child"}},
        },
        "required": ["f0", "total"],
    }
    defs["Child"] = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "label": {"$ref": "#/$defs/Field1"}},
    }
    schema = {
        "$defs": defs,
        "type": "object",
        "properties": {"records": {"type": "array", "items": {"$ref": "#/$defs/Record"}}},
        "required": ["records"],
    }  # fmt: skip
    address = {"street": "1 Main St", "city": "Springfield", "country": "DE"}
    record = {
        **{f"f{i}": f"value {i}" for i in range(30)},
        "address": address,
        "total": {"amount": 12.5, "currency": "EUR"},
        "children": [{"id": n, "label": f"child {n}"} for n in range(3)],
    }
    valid = {"records": [copy.deepcopy(record) for _ in range(100)]}
    invalid = copy.deepcopy(valid)
    invalid["records"][63]["total"]["currency"] = "GBP"
    return schema, valid, invalid


SIZES = {"small": small, "medium": medium, "large": large}


def _enum_schema(items: int) -> dict[str, Any]:
    return {"properties": {"e": {"enum": [f"value-{i:06d}" for i in range(items)]}}}


def _properties_schema(count: int) -> dict[str, Any]:
    return {"properties": {f"property_{i:05d}": {"type": "string"} for i in range(count)}}


def worst_cases() -> list[tuple[str, dict[str, Any], Any, dict[str, Any]]]:
    caps = {k: v for k, v in HARD_CAPS.items() if k not in ("cache_size", "max_errors")}
    redos = {"properties": {"s": {"pattern": "^(a+)+$"}}}
    return [
        ("ReDoS ^(a+)+$, 1,000,000 chars + '!'", redos, {"s": "a" * 999_999 + "!"}, {}),
        ("enum 5,000 items (defaults)", _enum_schema(5_000), {"e": "nope"}, {}),
        ("enum 9,900 items, 155 KiB (defaults)", _enum_schema(9_900), {"e": "nope"}, {}),
        ("enum 60,000 items, 0.9 MiB (hard caps)", _enum_schema(60_000), {"e": "nope"}, caps),
        ("1,900 properties (defaults)", _properties_schema(1_900), {}, {}),
        ("3,000 properties, 135 KiB (defaults)", _properties_schema(3_000), {}, {}),
        ("20,000 properties, 0.9 MiB (hard caps)", _properties_schema(20_000), {}, caps),
    ]


def _doubling(levels: int) -> dict[str, Any]:
    """Definitions each referencing the next twice: 2**levels schema nodes once inlined."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer", "minimum": 0}
    return {"type": "object", "$defs": defs, "additionalProperties": {"$ref": "#/$defs/d0"}}


def budget_cases() -> list[tuple[str, dict[str, Any], Any]]:
    """The heaviest legal schema/argument pairs at the default budgets (max_expanded_size
    10,000, max_validation_work 100,000, max_pattern_input_length 65,536)."""
    deep = {"type": "array", "items": {"type": "integer", "minimum": 0}}
    wide = {"type": "object", "properties": {"m": {"type": "array", "items": deep}}}
    pattern = {
        "type": "object",
        "properties": {"s": {"type": "array", "items": {"pattern": r"^[\p{L} ]+(x|y|z)*\S$"}}},
    }
    return [
        (
            "$ref fan-out, expanded size ~8,190, 11 properties",
            _doubling(11),
            {f"k{i}": 1 for i in range(11)},
        ),
        ("99,000 integers, valid", wide, {"m": [[1] * 9_000 for _ in range(11)]}),
        ("99,000 integers, every one invalid", wide, {"m": [[-1] * 9_000 for _ in range(11)]}),
        ("pattern x 8 strings of 65,536 chars", pattern, {"s": ["é" * 65_535 + "x"] * 8}),
        *_red_team_pairs(),
    ]


def _x(sub: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": sub}}


def _object(i: int) -> dict[str, int]:
    return {**{str(j): j for j in range(30)}, "i": i}


def _red_team_pairs() -> list[tuple[str, dict[str, Any], Any]]:
    """The outside red-team round's heaviest pairs (issue 25), all within the default bounds."""
    names = {"type": "object", "propertyNames": {"pattern": "^(a|b)*c$"}}
    return [
        ("propertyNames pattern x 1,000 names of 801 chars", names,
         {("ab" * 400) + str(i): 1 for i in range(1000)}),
        ("enum of 100 objects of 31 keys x 7 items matching none",
         _x({"type": "array", "items": {"enum": [_object(i) for i in range(100)]}}),
         {"x": [_object(-1)] * 7}),
        ("multipleOf 1e-300 x 9,999 floats of 1.7e308",
         _x({"type": "array", "items": {"multipleOf": 1e-300}}), {"x": [1.7e308] * 9_999}),
        ("pattern x 9,999 strings of 100 chars",
         _x({"type": "array", "items": {"pattern": "^(a|b)*c$"}}), {"x": ["ab" * 50] * 9_999}),
        ("97 integers of 2,047 bits under maximum 1.5",
         _x({"type": "array", "items": {"maximum": 1.5}}), {"x": [-(2**2046)] * 97}),
    ]  # fmt: skip
