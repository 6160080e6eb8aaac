"""Patterns run in linear time, huge integers and hostile objects are refused, embedded
resources are refused by the engine that cannot resolve them: never a hang, crash or widening."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

REDOS = "^(a+)+$"
EVIL = "a" * 5_000 + "!"


def _finishes(fn: Any) -> Any:
    """Run ``fn`` in a thread; a backtracking engine would still be running after 60 s."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "validation did not finish: pattern matching backtracks"
    return out[0]


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"properties": {"s": {"pattern": REDOS}}}, {"s": EVIL}),
        ({"patternProperties": {REDOS: {}}, "additionalProperties": False}, {EVIL: "x"}),
        ({"properties": {"s": {"propertyNames": {"pattern": REDOS}}}}, {"s": {EVIL: 1}}),
    ],
)
def test_catastrophic_patterns_run_in_linear_time(validator: Any, schema: Any, value: Any) -> None:
    result = _finishes(lambda: validator.validate(schema, value))
    assert not result.ok
    assert "rejected" not in result.errors[0].message


def test_required_names_are_matched_in_linear_time_while_compiling(validator: Any) -> None:
    schema: dict[str, Any] = {
        "patternProperties": {REDOS: {}},
        "additionalProperties": False,
        "required": [EVIL],
    }
    result = _finishes(lambda: validator.validate(schema, {}))
    assert not result.ok


@pytest.mark.parametrize(
    "pattern", [r"(a)\1", r"(?=a)b", r"(?!a)b", r"(?<=a)b", r"(?<!a)b", r"(?<n>a)\k<n>"]
)
def test_patterns_re2_cannot_express_are_schema_errors(validator: Any, pattern: str) -> None:
    schemas: list[dict[str, Any]] = [{"pattern": pattern}, {"patternProperties": {pattern: {}}}]
    for schema in schemas:
        result = validator.validate(schema, {})
        assert not result.ok
        message = result.errors[0].message
        assert message.startswith("tool parameter schema rejected")
        assert "no backreferences or lookaround" in message


def test_patterns_follow_the_documented_dialect(validator: Any) -> None:
    end = {"properties": {"s": {"pattern": "^a$"}}}
    assert validator.validate(end, {"s": "a"}).ok
    assert not validator.validate(end, {"s": "a\n"}).ok  # `$` is the end of the text only
    digits = {"properties": {"s": {"pattern": r"^\d+$"}}}
    assert validator.validate(digits, {"s": "123"}).ok
    assert not validator.validate(digits, {"s": "١٢٣"}).ok  # `\d` is ASCII, as in ECMA-262
    unicode = {"properties": {"s": {"pattern": r"^\p{L}+$"}}}
    assert validator.validate(unicode, {"s": "héllo"}).ok


@pytest.mark.parametrize(
    "huge",
    [10**4300, -(10**5000), 2**2048, -(2**2048), 10**700],
    ids=["4301-digits", "minus-5001-digits", "2^2048", "minus-2^2048", "701-digits"],
)
def test_integers_too_large_to_compare_are_refused(validator: Any, huge: int) -> None:
    schema = {"properties": {"n": {"maximum": 10, "minimum": -10}}}
    for value in ({"n": huge}, {"n": [huge]}, {"n": {"m": huge}}):
        result = validator.validate(schema, value)
        assert not result.ok
        assert "too large" in result.errors[0].message


def test_the_largest_allowed_integer_is_compared_exactly(validator: Any) -> None:
    top = 2**2048 - 1
    assert not validator.validate({"properties": {"n": {"maximum": 10}}}, {"n": top}).ok
    assert validator.validate({"properties": {"n": {"minimum": 10}}}, {"n": top}).ok
    assert not validator.validate({"properties": {"n": {"maximum": 10}}}, {"n": 10**400}).ok


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr")


class _ItemsRaise(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("items")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")


@pytest.mark.parametrize(
    "value",
    [{_BadRepr(): 1}, {10**5000: 1}, _ItemsRaise(a=1), {"a": _ItemsRaise(b=1)}, [_ItemsRaise()]],
    ids=["repr-raises", "huge-int-key", "items-raises", "nested-items-raises", "in-a-list"],
)
def test_hostile_values_are_invalid_not_raised(validator: Any, value: Any, engine: str) -> None:
    result = validator.validate({"type": "object"}, value)
    if engine == "jsonschema-rs" and type(value) is dict:
        return  # nested containers are read from their storage by Rust: no method is called
    assert not result.ok


DRAFT7 = "http://json-schema.org/draft-07/schema#"


def test_embedded_resources_are_refused_by_every_engine() -> None:
    schema: dict[str, Any] = {
        "$schema": DRAFT7,
        "definitions": {
            "m": {"$id": "m.json", "type": "object", "additionalProperties": {"$ref": "#"}}
        },
        "properties": {"x": {"$ref": "#/definitions/m"}},
        "additionalProperties": {"$ref": "#/definitions/m"},
    }
    result = JsonSchemaArgumentValidator().validate(schema, {"foo": 1})
    assert not result.ok
    assert "embedded resource" in result.errors[0].message
    rs = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
    refused = rs.validate(schema, {"foo": {}})
    assert not refused.ok
    assert "embedded resource" in refused.errors[0].message


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"a": {"$anchor": "x", "type": "integer"}}, "properties": {"p": {"$ref": "#x"}}},
        {"properties": {"p": {"$recursiveRef": "#", "$id": "inner"}}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"p": {"id": "q"}}},
    ],
)
def test_references_fastjsonschema_cannot_resolve_exactly_are_refused(schema: Any) -> None:
    result = JsonSchemaArgumentValidator().validate(schema, {"p": "s"})
    assert not result.ok
    assert result.errors[0].message.startswith("tool parameter schema rejected")


def test_format_regexes_run_in_linear_time_too() -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(validate_formats=True)
    )
    schema = {"properties": {"s": {"format": "email"}}}
    result = _finishes(lambda: validator.validate(schema, {"s": "." * 1_000_000}))
    assert not result.ok  # upstream's email regex is quadratic on `re`: minutes for this
    assert validator.validate(schema, {"s": "a.b@example.org"}).ok
    for bad in ("a..b@example.org", ".a@example.org", "a.@example.org", "a@b"):
        assert not validator.validate(schema, {"s": bad}).ok


@pytest.mark.parametrize(
    "schema",
    [_ItemsRaise(type="object"), {"properties": _ItemsRaise(a={})}, {"enum": [_BadRepr()]}],
    ids=["items-raises", "nested-items-raises", "bad-repr-value"],
)
def test_hostile_schema_objects_are_rejected_not_raised(validator: Any, schema: Any) -> None:
    result = validator.validate(schema, {})
    assert not result.ok
    assert result.errors[0].message.startswith("tool parameter schema rejected")
