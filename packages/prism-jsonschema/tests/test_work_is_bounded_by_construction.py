"""Validation work is bounded at registration, not by timing: the expanded size (every $ref
inlined) is counted on the reference graph and capped, cycles that never descend into the
data and recursion that doubles per level are refused, work per call is expanded size x
value nodes, and errors are collected only while that is small."""

from __future__ import annotations

import resource
import time
from typing import Any

import prism_jsonschema_tests_attacks as attacks  # loaded by conftest.py
import pytest

from prism.core.testing import scaled
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

pytestmark = pytest.mark.anyio


def _doubling(levels: int, applicator: str = "allOf") -> dict[str, Any]:
    """Each definition references the next twice: 2**levels nodes once inlined (~2 KB)."""
    defs: dict[str, Any] = {
        f"d{i}": {applicator: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer", "minimum": 0}
    return {"type": "object", "$defs": defs, "properties": {"n": {"$ref": "#/$defs/d0"}}}


@pytest.mark.parametrize("applicator", ["allOf", "anyOf", "oneOf"])
async def test_exponential_ref_fan_out_is_refused_at_registration(
    engine: str, applicator: str
) -> None:
    schema = _doubling(30, applicator)
    started = time.monotonic()
    result, handler = await attacks.dispatch_once(engine, schema, {"n": 1})
    assert time.monotonic() - started < scaled(2.0)
    assert result.error is not None
    assert "max_expanded_size=10,000" in result.error.message
    assert handler.calls == []


async def test_the_same_shape_within_the_budget_validates(engine: str) -> None:
    result, _handler = await attacks.dispatch_once(engine, _doubling(8), {"n": 1})
    assert result.error is None
    result, _handler = await attacks.dispatch_once(engine, _doubling(8), {"n": -1})
    assert result.error is not None


@pytest.mark.parametrize(
    ("why", "schema", "needle"),
    [
        ("ref loop", {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                      "properties": {"x": {"$ref": "#/$defs/a"}}}, "never descends"),
        ("not loop", {"$defs": {"a": {"not": {"anyOf": [{"$ref": "#/$defs/a"}]}}},
                      "properties": {"x": {"$ref": "#/$defs/a"}}}, "never descends"),
        ("self", {"properties": {"x": {"$ref": "#/properties/x"}}}, "never descends"),
        ("items and contains", {"items": {"$ref": "#"}, "contains": {"$ref": "#"}},
         "two routes"),
        ("twice per level", {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}],
                             "$defs": {"a": {"properties": {"x": {"$ref": "#"}}}}}, "twice"),
        ("wildcards overlap", {"additionalProperties": {"$ref": "#"},
                               "patternProperties": {"^x": {"$ref": "#"}}}, "two routes"),
    ],
)  # fmt: skip
async def test_recursion_that_never_ends_or_doubles_is_refused(
    engine: str, why: str, schema: Any, needle: str
) -> None:
    result, _handler = await attacks.dispatch_once(engine, schema, {"x": {"x": {}}})
    assert result.error is not None
    assert needle in result.error.message, (why, result.error.message)


async def test_ordinary_recursion_is_kept(engine: str) -> None:
    tree = {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "left": {"$ref": "#"}, "right": {"$ref": "#"}},
        "additionalProperties": False,
    }
    good = {"value": 1, "left": {"value": 2, "right": {"value": 3}}}
    result, _handler = await attacks.dispatch_once(engine, tree, good)
    assert result.error is None
    bad = {"value": 1, "left": {"value": 2, "right": {"value": "3"}}}
    result, _handler = await attacks.dispatch_once(engine, tree, bad)
    assert result.error is not None
    assert "/left/right/value" in result.error.message


async def test_an_argument_with_an_error_per_node_gets_one_error_and_a_marker(
    engine: str,
) -> None:
    items = {"type": "array", "items": {"type": "string"}}
    schema = {"type": "object", "properties": {"xs": items}}
    arguments = {"xs": list(range(50_000))}
    result, _handler = await attacks.dispatch_once(
        engine, schema, arguments, max_array_items=100_000
    )
    assert result.error is not None
    assert result.error.details is not None
    errors = result.error.details["errors"]
    assert len(errors) == 2
    assert errors[0]["path"] == "/xs/0"
    assert "and possibly more errors" in errors[1]["message"]
    result, _handler = await attacks.dispatch_once(
        engine, schema, arguments, max_array_items=100_000, max_validation_work=40_000
    )
    assert result.error is not None
    assert "max_validation_work=40,000" in result.error.message


def test_millions_of_errors_are_never_collected(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(
            engine=engine, max_array_items=100_000, max_validation_work=100_000_000
        )
    )
    schema = {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}
    value = [list(range(10_000)) for _ in range(100)]  # a million wrong items
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    result = validator.validate(schema, value)
    assert time.monotonic() - started < scaled(5.0)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 256 * 1024  # collecting them all took gigabytes
    assert len(result.errors) == 2
    assert "and possibly more errors" in result.errors[1].message


def test_small_values_still_get_every_error_up_to_max_errors(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_errors=8)
    )
    schema = {"type": "array", "items": {"type": "string"}}
    result = validator.validate(schema, [1, 2, 3])
    assert [e.path for e in result.errors] == ["/0", "/1", "/2"]


def test_shared_sub_objects_count_each_time_they_are_reached(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    node: Any = {"leaf": 1}
    for _ in range(40):
        node = {"a": node, "b": node}  # a DAG: 2**40 nodes once unfolded
    started = time.monotonic()
    result = validator.validate({"type": "object"}, node)
    assert time.monotonic() - started < scaled(1.0)
    assert not result.ok
    assert "max_validation_work" in result.errors[0].message


async def test_the_collect_all_pass_is_not_run_over_a_large_value(engine: str) -> None:
    """fastjsonschema's second, collect-all pass over ``allOf`` x 16 took 85 s: every item
    fails every branch. Past a small amount of work only the first error is reported."""
    branches = [{"type": "string", "minLength": k} for k in range(16)]
    schema = {"type": "object", "properties": {"xs": {"items": {"allOf": branches}}}}
    arguments = {"xs": list(range(5_000))}  # 80,000 errors if all were collected
    started = time.process_time()
    result, handler = await attacks.dispatch_once(engine, schema, arguments, max_errors=64)
    assert time.process_time() - started < scaled(1.0)
    assert handler.calls == []
    assert result.error is not None and result.error.details is not None
    errors = result.error.details["errors"]
    assert errors[0]["path"] == "/xs/0"
    assert len(errors) == 2 and "and possibly more errors" in errors[1]["message"]
