"""Realistic tool parameter schemas, each with instances that must pass and instances that must not.

Shapes come from what MCP servers, pydantic and zod-to-json-schema emit: nested objects, arrays of
objects, enums, anyOf/oneOf, $defs + local $ref, format, draft-07 and 2020-12 $schema,
additionalProperties: false, properties without type, and the 2019-09/2020-12 keywords.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Case:
    name: str
    schema: dict[str, Any]
    valid: tuple[Any, ...]
    invalid: tuple[Any, ...]


_ADDRESS = {
    "type": "object",
    "properties": {
        "street": {"type": "string", "minLength": 1},
        "city": {"type": "string"},
        "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
        "country": {"type": "string", "enum": ["US", "DE", "FR"]},
    },
    "required": ["street", "city", "country"],
    "additionalProperties": False,
}

CASES: tuple[Case, ...] = (
    Case(
        "web_search",
        {
            "$schema": D2020,
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 500},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "site": {"type": "string", "format": "hostname"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        ({"query": "prism"}, {"query": "x", "max_results": 50, "site": "example.com"}),
        (
            {},
            {"query": ""},
            {"query": "x", "max_results": 0},
            {"query": "x", "extra": 1},
            {"query": 5},
            {"query": "x", "max_results": 2.5},
        ),
    ),
    Case(
        "read_file",
        {
            "$schema": D7,
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to read"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        (
            {"path": "a.txt"},
            {"path": "a.txt", "offset": 3, "limit": 10},
            {"path": "x", "offset": 2.0},
        ),
        ({"path": "a", "offset": 0}, {"offset": 1}, {"path": ["a"]}, {"path": "a", "limit": True}),
    ),
    Case(
        "edit_file",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "old_text": {"type": "string"},
                            "new_text": {"type": "string"},
                        },
                        "required": ["old_text", "new_text"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["path", "edits"],
        },
        ({"path": "f", "edits": [{"old_text": "a", "new_text": "b"}]},),
        (
            {"path": "f", "edits": []},
            {"path": "f", "edits": [{"old_text": "a"}]},
            {"path": "f", "edits": [{"old_text": "a", "new_text": "b", "x": 1}]},
            {"path": "f", "edits": ["a"]},
        ),
    ),
    Case(
        "shell",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string", "minLength": 1},
                "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
            },
            "required": ["command"],
        },
        ({"command": "ls"}, {"command": "ls", "timeout": 0.5}, {"command": "ls", "timeout": 3600}),
        (
            {"command": "ls", "timeout": 0},
            {"command": "ls", "timeout": 3601},
            {"command": ""},
            {"command": "ls", "timeout": "5"},
        ),
    ),
    Case(
        "send_email",
        {
            "$schema": D7,
            "type": "object",
            "properties": {
                "to": {
                    "type": "array",
                    "items": {"type": "string", "format": "email"},
                    "minItems": 1,
                    "maxItems": 3,
                    "uniqueItems": True,
                },
                "subject": {"type": "string", "maxLength": 120},
                "body": {"type": "string"},
                "importance": {"enum": ["low", "normal", "high"]},
            },
            "required": ["to", "subject", "body"],
            "additionalProperties": False,
        },
        (
            {"to": ["a@x.org"], "subject": "s", "body": "b"},
            {"to": ["a@x.org", "b@x.org"], "subject": "", "body": "", "importance": "high"},
        ),
        (
            {"to": [], "subject": "s", "body": "b"},
            {"to": ["a@x.org", "a@x.org"], "subject": "s", "body": "b"},
            {"to": ["a", "b", "c", "d"], "subject": "s", "body": "b"},
            {"to": ["a@x.org"], "subject": "s", "body": "b", "importance": "urgent"},
        ),
    ),
    Case(
        "calendar_event",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "start": {"type": "string", "format": "date-time"},
                "attendees": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "email": {"type": "string"},
                            "optional": {"type": "boolean"},
                        },
                        "required": ["email"],
                    },
                },
                "recurrence": {
                    "oneOf": [
                        {"const": "none"},
                        {
                            "type": "object",
                            "properties": {
                                "freq": {"enum": ["daily", "weekly"]},
                                "count": {"type": "integer", "minimum": 1},
                            },
                            "required": ["freq"],
                        },
                    ]
                },
            },
            "required": ["title", "start"],
        },
        (
            {"title": "t", "start": "2024-01-01T10:00:00Z"},
            {
                "title": "t",
                "start": "s",
                "recurrence": "none",
                "attendees": [{"email": "a"}, {"email": "b", "optional": True}],
            },
            {"title": "t", "start": "s", "recurrence": {"freq": "daily", "count": 3}},
        ),
        (
            {"title": "t"},
            {"title": "t", "start": "s", "recurrence": "monthly"},
            {"title": "t", "start": "s", "recurrence": {"count": 3}},
            {"title": "t", "start": "s", "attendees": [{"optional": False}]},
        ),
    ),
    Case(
        "sql_query",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "params": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "number"},
                            {"type": "boolean"},
                            {"type": "null"},
                        ]
                    },
                },
                "database": {"type": "string", "enum": ["main", "analytics"]},
            },
            "required": ["query", "database"],
        },
        ({"query": "select 1", "database": "main", "params": ["a", 1, 2.5, True, None]},),
        (
            {"query": "q", "database": "other"},
            {"query": "q", "database": "main", "params": [[1]]},
            {"query": "q", "database": "main", "params": [{"a": 1}]},
        ),
    ),
    Case(
        "http_request",
        {
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["GET", "POST", "PUT", "DELETE"]},
                "url": {"type": "string", "format": "uri", "pattern": "^https?://"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "body": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "null"}]},
            },
            "required": ["method", "url"],
            "additionalProperties": False,
        },
        (
            {"method": "GET", "url": "https://x.org"},
            {"method": "POST", "url": "http://x", "headers": {"A": "b"}, "body": {"k": [1]}},
            {"method": "PUT", "url": "https://x", "body": None},
        ),
        (
            {"method": "PATCH", "url": "https://x"},
            {"method": "GET", "url": "ftp://x"},
            {"method": "GET", "url": "https://x", "headers": {"A": 1}},
            {"method": "GET", "url": "https://x", "body": 3},
        ),
    ),
    Case(
        "create_order_pydantic",
        {
            "$defs": {
                "Item": {
                    "properties": {
                        "sku": {"title": "Sku", "type": "string"},
                        "quantity": {"title": "Quantity", "type": "integer", "exclusiveMinimum": 0},
                    },
                    "required": ["sku", "quantity"],
                    "title": "Item",
                    "type": "object",
                },
                "Address": _ADDRESS,
            },
            "properties": {
                "items": {"items": {"$ref": "#/$defs/Item"}, "title": "Items", "type": "array"},
                "shipping": {"$ref": "#/$defs/Address"},
                "notes": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["items", "shipping"],
            "title": "CreateOrder",
            "type": "object",
        },
        (
            {
                "items": [{"sku": "a", "quantity": 1}],
                "shipping": {"street": "s", "city": "c", "country": "US", "zip": "12345"},
            },
            {"items": [], "shipping": {"street": "s", "city": "c", "country": "DE"}, "notes": None},
        ),
        (
            {
                "items": [{"sku": "a", "quantity": 0}],
                "shipping": {"street": "s", "city": "c", "country": "US"},
            },
            {"items": [], "shipping": {"street": "s", "city": "c", "country": "US", "zip": "1234"}},
            {"items": [], "shipping": {"street": "s", "city": "c", "country": "US", "x": 1}},
            {"items": [], "shipping": {"street": "s", "city": "c", "country": "US"}, "notes": 3},
        ),
    ),
    Case(
        "file_tree_recursive",
        {
            "$ref": "#/$defs/Node",
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                    "required": ["name"],
                }
            },
        },
        ({"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}]},),
        ({"children": []}, {"name": "r", "children": [{"name": "a", "children": [{}]}]}),
    ),
    Case(
        "draft04_price",
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "http://example.com/price.json",
            "type": "object",
            "properties": {
                "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                "count": {"type": "integer"},
            },
            "required": ["price"],
        },
        ({"price": 0.01}, {"price": 3, "count": 2}),
        ({"price": 0}, {"price": -1}, {"price": 1, "count": 1.5}),
    ),
    Case(
        "draft06_const_contains",
        {
            "$schema": "http://json-schema.org/draft-06/schema#",
            "type": "object",
            "properties": {
                "version": {"const": 2},
                "flags": {"type": "array", "contains": {"const": "required"}},
            },
        },
        ({"version": 2, "flags": ["x", "required"]}, {}),
        ({"version": 3}, {"flags": ["x"]}, {"flags": []}),
    ),
    Case(
        "properties_without_type",
        {"properties": {"name": {"minLength": 2}, "n": {"maximum": 5}}, "required": ["name"]},
        ({"name": "ab"}, {"name": 1}, {"name": "ab", "n": "x"}, {"name": None, "n": 5}),
        ({"name": "a"}, {"name": "ab", "n": 6}, {}),
    ),
    Case(
        "env_pattern_properties",
        {
            "type": "object",
            "properties": {
                "env": {
                    "type": "object",
                    "patternProperties": {"^[A-Z_][A-Z0-9_]*$": {"type": "string"}},
                    "additionalProperties": False,
                }
            },
        },
        ({"env": {"PATH": "/bin", "A_1": ""}}, {"env": {}}),
        ({"env": {"path": "x"}}, {"env": {"PATH": 1}}, {"env": {"1A": "x"}}),
    ),
    Case(
        "payment_if_then_else",
        {
            "$schema": D7,
            "type": "object",
            "properties": {"method": {"enum": ["card", "iban"]}},
            "required": ["method"],
            "if": {"properties": {"method": {"const": "card"}}},
            "then": {"required": ["card_number"]},
            "else": {"required": ["iban"]},
        },
        ({"method": "card", "card_number": "4111"}, {"method": "iban", "iban": "DE00"}),
        ({"method": "card", "iban": "DE00"}, {"method": "iban"}),
    ),
    Case(
        "dependent_required_2020",
        {
            "$schema": D2020,
            "type": "object",
            "properties": {
                "credit_card": {"type": "string"},
                "billing_address": {"type": "string"},
            },
            "dependentRequired": {"credit_card": ["billing_address"]},
            "dependentSchemas": {"billing_address": {"required": ["name"]}},
        },
        ({}, {"credit_card": "1", "billing_address": "a", "name": "n"}, {"name": "n"}),
        ({"credit_card": "1"}, {"billing_address": "a"}),
    ),
    Case(
        "tuple_prefix_items",
        {
            "type": "object",
            "properties": {
                "point": {
                    "type": "array",
                    "prefixItems": [{"type": "number"}, {"type": "number"}],
                    "minItems": 2,
                    "maxItems": 2,
                },
                "row": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}],
                    "items": {"type": "integer"},
                },
                "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
            },
        },
        ({"point": [1, 2.5]}, {"row": ["a", 1, 2]}, {"row": []}, {"pair": ["a"]}),
        (
            {"point": [1]},
            {"point": [1, "x"]},
            {"row": ["a", "b"]},
            {"row": [1]},
            {"pair": ["a", 1]},
        ),
    ),
    Case(
        "nullable_type_array",
        {
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"]},
                "tag": {"type": ["string", "null"]},
            },
        },
        ({"limit": None}, {"limit": 3, "tag": None}, {"tag": "x"}),
        ({"limit": "3"}, {"tag": 1}, {"limit": 1.5}),
    ),
    Case(
        "tags_property_names",
        {
            "type": "object",
            "properties": {
                "tags": {
                    "type": "object",
                    "propertyNames": {"maxLength": 8, "pattern": "^[a-z]+$"},
                    "additionalProperties": {"type": "boolean"},
                    "maxProperties": 3,
                }
            },
        },
        ({"tags": {"red": True, "blue": False}}, {"tags": {}}),
        (
            {"tags": {"Red": True}},
            {"tags": {"verylongname": True}},
            {"tags": {"red": 1}},
            {"tags": {"a": True, "b": True, "c": True, "d": True}},
        ),
    ),
    Case(
        "forbid_field_not",
        {
            "type": "object",
            "properties": {"user": {"type": "string"}},
            "not": {"required": ["password"]},
        },
        ({"user": "u"}, {}),
        ({"user": "u", "password": "p"},),
    ),
    Case(
        "quantity_multiple_of",
        {
            "type": "object",
            "properties": {"qty": {"type": "number", "multipleOf": 0.5, "minimum": 0}},
        },
        ({"qty": 1.5}, {"qty": 0}, {"qty": 10}),
        ({"qty": 1.25}, {"qty": -0.5}),
    ),
    Case(
        "unevaluated_properties_2020",
        {
            "$schema": D2020,
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "integer"}},
            "unevaluatedProperties": False,
        },
        ({"a": "s"}, {"a": "s", "x-n": 1}, {}),
        ({"b": 1}, {"x-n": "s"}),
    ),
    Case(
        "ref_with_annotations_pydantic_v2",
        {
            "$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
            "properties": {
                "color": {"$ref": "#/$defs/Color", "description": "Pick one", "default": "red"}
            },
            "required": ["color"],
            "type": "object",
        },
        ({"color": "red"},),
        ({"color": "blue"}, {}),
    ),
    Case(
        "ref_with_assertion_sibling_2020",
        {
            "$defs": {"Code": {"type": "string", "pattern": "^[A-Z]+$"}},
            "type": "object",
            "properties": {"code": {"$ref": "#/$defs/Code", "maxLength": 3}},
        },
        ({"code": "ABC"},),
        ({"code": "ABCD"}, {"code": "ab"}),
    ),
    Case(
        "mcp_draft07_nested_uri_format",
        {
            "$schema": D7,
            "type": "object",
            "properties": {
                "resource": {
                    "type": "object",
                    "properties": {
                        "uri": {"type": "string", "format": "uri"},
                        "meta": {"type": "object", "additionalProperties": True},
                    },
                    "required": ["uri"],
                    "additionalProperties": False,
                }
            },
            "required": ["resource"],
            "additionalProperties": False,
        },
        (
            {"resource": {"uri": "file:///x"}},
            {"resource": {"uri": "not a uri", "meta": {"a": [1]}}},
        ),
        ({"resource": {}}, {"resource": {"uri": "x", "other": 1}}, {"resource": "x"}),
    ),
    Case(
        "all_of_composition",
        {
            "allOf": [
                {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                {"properties": {"name": {"type": "string", "maxLength": 5}}, "required": ["name"]},
            ]
        },
        ({"id": 1, "name": "n"},),
        ({"id": 1}, {"name": "n"}, {"id": 1, "name": "toolong"}),
    ),
    Case(
        "mixed_enum_integral_float",
        {
            "type": "object",
            "properties": {
                "mode": {"enum": [1, "one", None, True, [1, 2], {"k": "v"}]},
                "count": {"type": "integer"},
            },
        },
        (
            {"mode": 1},
            {"mode": 1.0},
            {"mode": "one"},
            {"mode": None},
            {"mode": True},
            {"mode": [1, 2]},
            {"mode": {"k": "v"}},
            {"count": 3.0},
        ),
        ({"mode": 2}, {"mode": False}, {"mode": [2, 1]}, {"mode": {"k": "w"}}, {"count": 3.5}),
    ),
    Case(
        "settings_min_max_properties",
        {
            "type": "object",
            "properties": {
                "settings": {"type": "object", "minProperties": 1, "maxProperties": 2},
                "ids": {"type": "array", "uniqueItems": True, "items": {"type": "object"}},
            },
        },
        ({"settings": {"a": 1}}, {"ids": [{"a": 1}, {"a": 2}]}),
        ({"settings": {}}, {"settings": {"a": 1, "b": 2, "c": 3}}, {"ids": [{"a": 1}, {"a": 1}]}),
    ),
    Case(
        "draft2019_tuple_items",
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "type": "array",
            "items": [{"type": "string"}, {"type": "integer"}],
            "additionalItems": False,
        },
        (["a", 1], ["a"], []),
        (["a", "b"], ["a", 1, 2]),
    ),
)
