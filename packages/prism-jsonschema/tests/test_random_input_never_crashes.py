"""Properties: random instances and random schemas only ever yield ``ok`` or errors, and the two
engines agree on valid/invalid for well-formed schemas."""

from __future__ import annotations

import string
from typing import Any

import prism_jsonschema_tests_realistic_schemas as realistic  # loaded by conftest.py
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._errors import MESSAGE_LIMIT

FAST = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="fastjsonschema"))
RS = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))

_ascii = st.text(alphabet=string.ascii_letters + string.digits + " _-.@/:", max_size=12).filter(
    lambda s: s != "__proto__"
)
_numbers = st.integers(-(2**53), 2**53) | st.integers(-400, 400).map(lambda i: i / 4)
_json = st.recursive(
    st.none() | st.booleans() | _numbers | _ascii,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_ascii, inner, max_size=4),
    max_leaves=12,
)


def _check_result(result: Any) -> None:
    assert result.ok is (not result.errors)
    for error in result.errors:
        assert isinstance(error.message, str)
        assert 0 < len(error.message) <= 600
        assert error.path is None or error.path == "" or error.path.startswith("/")


@st.composite
def _mutated(draw: st.DrawFn, value: Any) -> Any:
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(_json)
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        if choice == 1:
            del out[key]
        elif choice == 2:
            out[draw(_ascii)] = draw(_json)
        else:
            out[key] = draw(_mutated(value[key]))
        return out
    if isinstance(value, list) and value:
        index = draw(st.integers(0, len(value) - 1))
        out_list = list(value)
        out_list[index] = draw(_mutated(value[index]))
        return out_list
    return value


_cases = st.sampled_from(realistic.CASES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_instances_never_crash_and_engines_agree(data: st.DataObject) -> None:
    case = data.draw(_cases)
    base = data.draw(st.sampled_from(case.valid + case.invalid))
    instance = data.draw(_mutated(base))
    fast = FAST.validate(case.schema, instance)
    rs = RS.validate(case.schema, instance)
    _check_result(fast)
    _check_result(rs)
    assert fast.ok == rs.ok, (case.name, instance, fast.errors, rs.errors)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=_json | st.builds(lambda: float("nan")) | st.sets(st.integers(), max_size=2))
def test_arbitrary_values_never_crash(instance: Any) -> None:
    for case in realistic.CASES[:6]:
        _check_result(FAST.validate(case.schema, instance))
        _check_result(RS.validate(case.schema, instance))


_types = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])


def _well_formed() -> st.SearchStrategy[Any]:
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": _types | st.lists(_types, min_size=1, max_size=3, unique=True),
            "minLength": st.integers(0, 4),
            "maxLength": st.integers(0, 6),
            "minimum": st.integers(-5, 5),
            "maximum": st.integers(-5, 5),
            "exclusiveMaximum": st.integers(-5, 5),
            "multipleOf": st.sampled_from([1, 2, 0.5, 3]),
            "enum": st.lists(_json, min_size=1, max_size=4),
            "const": _json,
            "pattern": st.sampled_from(["^a", "b$", "^[a-z]+$", "[0-9]", "^.{2,3}$"]),
            "minItems": st.integers(0, 3),
            "maxItems": st.integers(0, 4),
            "uniqueItems": st.booleans(),
            "minProperties": st.integers(0, 2),
            "maxProperties": st.integers(0, 4),
            "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True),
        },
    )

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        keywords = st.fixed_dictionaries(
            {},
            optional={
                "properties": st.dictionaries(st.sampled_from(["a", "b", "c", "d.e"]), inner,
                                              max_size=3),
                "additionalProperties": inner,
                "patternProperties": st.dictionaries(st.sampled_from(["^x", "[0-9]"]), inner,
                                                     max_size=2),
                "items": inner,
                "prefixItems": st.lists(inner, min_size=1, max_size=2),
                "contains": inner,
                "anyOf": st.lists(inner, min_size=1, max_size=3),
                "oneOf": st.lists(inner, min_size=1, max_size=3),
                "allOf": st.lists(inner, min_size=1, max_size=2),
                "not": inner,
                "if": inner,
                "then": inner,
                "else": inner,
                "propertyNames": st.fixed_dictionaries({"maxLength": st.integers(0, 3)}),
                "dependentRequired": st.dictionaries(st.sampled_from(["a", "b"]),
                                                     st.lists(st.sampled_from(["c", "d"]),
                                                              unique=True, max_size=2),
                                                     max_size=2),
            },
        )  # fmt: skip
        return st.builds(lambda a, b: {**a, **b}, leaf, keywords)

    return st.recursive(leaf | st.booleans(), extend, max_leaves=6)


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_well_formed(), instances=st.lists(_json, min_size=1, max_size=4))
def test_engines_agree_on_random_well_formed_schemas(schema: Any, instances: list[Any]) -> None:
    document = {"$defs": {"d": schema}, "anyOf": [{"$ref": "#/$defs/d"}]}
    for candidate in (schema, document) if isinstance(schema, dict) else (document,):
        for instance in instances:
            fast = FAST.validate(candidate, instance)
            rs = RS.validate(candidate, instance)
            _check_result(fast)
            _check_result(rs)
            if _stricter_where_negated(fast) or _stricter_where_negated(rs):
                # a float multipleOf under not/if/oneOf: refused by design, on both engines
                assert _stricter_where_negated(fast) and _stricter_where_negated(rs)
                continue
            assert not any("rejected" in e.message for e in fast.errors), fast.errors
            assert not any("rejected" in e.message for e in rs.errors), rs.errors
            assert fast.ok == rs.ok, (candidate, instance, fast.errors, rs.errors)


def _stricter_where_negated(result: Any) -> bool:
    return any("unsafe under not, if, oneOf" in e.message for e in result.errors)


_any_keyword = st.sampled_from(
    ["type", "properties", "items", "prefixItems", "enum", "const", "required", "pattern",
     "patternProperties", "minLength", "maximum", "exclusiveMinimum", "multipleOf", "anyOf",
     "oneOf", "allOf", "not", "if", "then", "$ref", "$defs", "definitions", "dependencies",
     "dependentRequired", "dependentSchemas", "additionalProperties", "unevaluatedProperties",
     "unevaluatedItems", "minContains", "contains", "format", "$id", "$schema", "$anchor",
     "$dynamicRef", "$recursiveRef", "propertyNames", "uniqueItems", "default", "x-extra"]
)  # fmt: skip
_garbage = st.recursive(
    _json | st.sampled_from(["#", "#/$defs/a", "#/properties", "^(a", "string", "object",
                             "https://json-schema.org/draft/2020-12/schema",
                             "http://json-schema.org/draft-04/schema#"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_any_keyword, inner, max_size=4),
    max_leaves=10,
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    schema=st.dictionaries(_any_keyword, _garbage, max_size=5),
    instance=_json,
    tight=st.booleans(),
)
def test_random_schemas_compile_or_are_rejected_with_a_message(
    schema: Any, instance: Any, tight: bool
) -> None:
    options: dict[str, Any] = {"max_schema_nodes": 12, "max_schema_depth": 4} if tight else {}
    for engine in ("fastjsonschema", "jsonschema-rs"):
        validator = JsonSchemaArgumentValidator(
            options=JsonSchemaValidatorOptions(engine=engine, **options)
        )
        first = validator.validate(schema, instance)
        _check_result(first)
        assert validator.validate(schema, instance) == first  # cached, same answer
        for error in first.errors:
            assert len(error.message) <= max(MESSAGE_LIMIT, 600)
