"""A check stricter than the reference is honoured only where failing it can only reject.

Prism's asserted formats and exact ``multipleOf`` (a float divisor) reject some values the reference
(``jsonschema``) accepts. Under ``not``, ``if``, ``oneOf`` or ``contains`` with ``maxContains``
(directly or through a ``$ref``) that strictness becomes acceptance, so such a schema is refused
at registration, naming the keyword's location; in positive positions it is kept.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"
ENGINES = ("fastjsonschema", "jsonschema-rs")
REFUSED = "tool parameter schema rejected"


def _prism(engine: str, formats: bool = True) -> JsonSchemaArgumentValidator:
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
    return JsonSchemaArgumentValidator(options=options)


def _reference_valid(schema: dict[str, Any], value: Any) -> bool:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return bool(cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value))


def _refusal(engine: str, schema: dict[str, Any]) -> str | None:
    result = _prism(engine).validate(schema, {})
    if result.ok or not result.errors[0].message.startswith(REFUSED):
        return None
    return result.errors[0].message


REFUSED_SCHEMAS = [
    ("not", {"not": {"format": "email"}}, "#/properties/x/not/format"),
    ("not-not", {"not": {"not": {"multipleOf": 0.7}}}, "#/properties/x/not/not/multipleOf"),
    ("if", {"if": {"multipleOf": 0.3}, "then": False}, "#/properties/x/if/multipleOf"),
    ("oneOf", {"oneOf": [{"type": "integer"}, {"format": "ipv6"}]}, "/oneOf/1/format"),
    ("deep-under-not", {"not": {"properties": {"y": {"items": {"format": "uuid"}}}}}, "/y/"),
    ("ref-from-not", {"not": {"$ref": "#/$defs/e"}}, "#/$defs/e/format"),
    ("ref-chain", {"oneOf": [{"$ref": "#/$defs/r"}, {}]}, "#/$defs/e/format"),
    ("contains-max", {"contains": {"format": "email"}, "maxContains": 1}, "/contains/format"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("sub", "where"), [pytest.param(s, w, id=i) for i, s, w in REFUSED_SCHEMAS]
)
def test_a_stricter_check_in_a_negated_position_refuses_the_schema(
    engine: str, sub: dict[str, Any], where: str
) -> None:
    schema = {
        "$schema": D2019,
        "properties": {"x": sub},
        "$defs": {"e": {"format": "email"}, "r": {"$ref": "#/$defs/e"}},
    }
    message = _refusal(engine, schema)
    assert message is not None and where in message
    assert "unsafe under not, if, oneOf" in message


POSITIVE = [
    {"anyOf": [{"format": "email"}, {"type": "integer"}]},
    {"allOf": [{"$ref": "#/$defs/e"}]},
    {"if": {"type": "string"}, "then": {"format": "email"}, "else": {"multipleOf": 3}},
    {"items": {"multipleOf": 0.5}, "contains": {"format": "email"}},
    {"not": {"type": "integer"}, "format": "email", "multipleOf": 2},
    {"not": {"$ref": "#/$defs/plain"}},
    {"not": {"multipleOf": 2}},  # an integer divisor is the reference's own `%`: exact
    {"oneOf": [{"multipleOf": 3}, {"multipleOf": 5}]},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sub", POSITIVE)
def test_a_stricter_check_in_a_positive_position_is_kept(engine: str, sub: dict[str, Any]) -> None:
    schema = {
        "$schema": D2020,
        "properties": {"x": sub},
        "$defs": {"e": {"format": "email"}, "plain": {"type": "boolean"}},
    }
    assert _refusal(engine, schema) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_without_asserted_formats_a_negated_format_is_an_annotation(engine: str) -> None:
    schema = {"properties": {"x": {"not": {"format": "email"}}}}
    result = _prism(engine, formats=False).validate(schema, {"x": "a@@b.c"})
    assert not result.ok and result.errors[0].path == "/x"  # `not: {}`: nothing passes


# --- the class: any nesting of applicators around a stricter check never widens ---------------
VALUES = [
    "a@@b.c", ".a@b.c", "a@b", "a@b.c", "a b@c.d", "1:2:3:4:5:6:7::", "::1",
    "+2345678-1234-1234-1234-123456789abc", "12345678-1234-1234-1234-123456789abc",
    1e308, 1e300, 0.7, 2.1, 3, 9, 0, -6, True, None, [], {},
]  # fmt: skip
LEAVES = [
    {"format": "email"}, {"format": "ipv6"}, {"format": "uuid"}, {"multipleOf": 0.7},
    {"multipleOf": 3}, {"multipleOf": 0.5}, {"type": "string"}, {"type": "number"}, {},
]  # fmt: skip


def _wrap(kind: str, inner: Any, other: Any) -> dict[str, Any]:
    shapes: dict[str, Any] = {
        "not": {"not": inner},
        "if-then": {"if": inner, "then": other},
        "if-else": {"if": other, "else": inner},
        "then": {"if": other, "then": inner},
        "oneOf": {"oneOf": [inner, other]},
        "anyOf": {"anyOf": [other, inner]},
        "allOf": {"allOf": [inner]},
        "ref": {"$ref": "#/$defs/d", "$defs": {"d": inner}},
        "contains-max": {"contains": inner, "maxContains": 1},
        "items": {"items": inner},
    }
    shape: dict[str, Any] = shapes[kind]
    return shape


@settings(max_examples=400, derandomize=True, deadline=None)
@given(
    engine=st.sampled_from(ENGINES),
    leaf=st.sampled_from(LEAVES),
    others=st.lists(st.sampled_from([*LEAVES, False, True]), min_size=1, max_size=3),
    kinds=st.lists(
        st.sampled_from(
            ["not", "if-then", "if-else", "then", "oneOf", "anyOf", "allOf", "ref", "items",
             "contains-max"]
        ),
        min_size=1,
        max_size=3,
    ),
    value=st.sampled_from(VALUES),
    wrap_value=st.booleans(),
)  # fmt: skip
def test_no_nesting_of_applicators_makes_a_stricter_check_widen(
    engine: str,
    leaf: dict[str, Any],
    others: list[Any],
    kinds: list[str],
    value: Any,
    wrap_value: bool,
) -> None:
    schema: Any = leaf
    for i, kind in enumerate(kinds):
        schema = _wrap(kind, schema, others[i % len(others)])
    if "$defs" in schema:
        schema = {"allOf": [schema]}  # keep $defs below the root: refs must stay resolvable
    refs = _hoist_defs(schema)
    root = {"$schema": D2019, "properties": {"x": schema}, "$defs": refs}
    instance = {"x": [value] if wrap_value else value}
    result = _prism(engine).validate(root, instance)
    if result.ok:
        assert _reference_valid(root, instance), (root, instance)


def _hoist_defs(schema: Any) -> dict[str, Any]:
    """Move every nested ``$defs: {d: ...}`` to the root as ``d0``, ``d1`` ... and point each
    ``$ref`` there (no engine needs an embedded resource to resolve them)."""
    found: dict[str, Any] = {}

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
        elif isinstance(node, dict):
            defs = node.pop("$defs", None)
            if defs is not None:
                name = f"d{len(found)}"
                found[name] = defs["d"]
                node["$ref"] = f"#/$defs/{name}"
                visit(defs["d"])
            for item in list(node.values()):
                visit(item)

    visit(schema)
    return found
