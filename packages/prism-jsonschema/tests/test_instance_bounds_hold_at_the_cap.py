"""Instance bounds hold before the engine: at the cap passes, one above fails with its pointer."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

ANYTHING: dict[str, Any] = {}


def _error(validator: JsonSchemaArgumentValidator, instance: object) -> tuple[str | None, str]:
    result = validator.validate(ANYTHING, instance)
    assert not result.ok
    (error,) = result.errors
    return error.path, error.message


def _nested_lists(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("cap", [1, 5, 64])
def test_max_instance_depth(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_instance_depth=cap)
    )
    assert validator.validate(ANYTHING, _nested_lists(cap)).ok
    path, message = _error(validator, _nested_lists(cap + 1))
    assert path == "/0" * cap
    assert f"max_instance_depth={cap}" in message


def test_max_instance_depth_names_object_keys(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_instance_depth=3)
    )
    assert validator.validate(ANYTHING, {"a": {"b/c": {}}}).ok
    path, _ = _error(validator, {"a": {"b/c": {"d~": {}}}})
    assert path == "/a/b~1c/d~0"


@pytest.mark.parametrize("cap", [1, 50])
def test_max_instance_properties(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_instance_properties=cap)
    )
    wide = {f"k{i}": i for i in range(cap)}
    assert validator.validate(ANYTHING, {"outer": wide}).ok
    path, message = _error(validator, {"outer": {**wide, "extra": 0}})
    assert path == "/outer"
    assert f"max_instance_properties={cap}" in message


@pytest.mark.parametrize("cap", [1, 1_000])
def test_max_string_length(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_string_length=cap)
    )
    assert validator.validate(ANYTHING, {"l": ["", "x" * cap]}).ok
    path, message = _error(validator, {"l": ["", "x" * (cap + 1)]})
    assert path == "/l/1"
    assert f"max_string_length={cap}" in message
    assert validator.validate(ANYTHING, {"k" * cap: 1}).ok
    path, message = _error(validator, {"o": {"k" * (cap + 1): 1}})
    assert path == "/o"
    assert "property name" in message


@pytest.mark.parametrize("cap", [1, 300])
def test_max_array_items(engine: str, cap: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_array_items=cap)
    )
    assert validator.validate(ANYTHING, {"a": [[0] * cap]}).ok
    path, message = _error(validator, {"a": [[0] * (cap + 1)]})
    assert path == "/a/0"
    assert f"max_array_items={cap}" in message


def test_bounds_are_checked_before_the_engine(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_string_length=10)
    )
    schema = {"properties": {"s": {"type": "integer"}}}
    # The engine would report the wrong type; the bound is reported instead, so it ran first.
    path, message = _error_for(validator, schema, {"s": "x" * 11})
    assert path == "/s"
    assert "max_string_length" in message


def _error_for(validator: JsonSchemaArgumentValidator, schema: Any, instance: object) -> Any:
    result = validator.validate(schema, instance)
    assert not result.ok
    (error,) = result.errors
    return error.path, error.message


class _ReadOnly(Mapping[str, Any]):
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def test_non_dict_mappings_and_tuples_are_validated_as_json(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_array_items=2)
    )
    schema = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
    }
    assert validator.validate(schema, MappingProxyType({"xs": (1, 2)})).ok
    assert validator.validate(schema, _ReadOnly({"xs": [1]})).ok
    assert not validator.validate(schema, _ReadOnly({"xs": ("a",)})).ok
    assert _error_for(validator, schema, _ReadOnly({"xs": (1, 2, 3)}))[0] == "/xs"


@pytest.mark.parametrize(
    ("instance", "path"),
    [({"n": float("nan")}, "/n"), ({"a": [float("inf")]}, "/a/0"), ({"s": {1, 2}}, "/s"),
     ({1: "x"}, ""), ({"o": object()}, "/o")],
)  # fmt: skip
def test_non_json_values_are_refused_with_their_pointer(
    engine: str, instance: Any, path: str
) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    got, message = _error(validator, instance)
    assert got == path
    assert "JSON" in message
