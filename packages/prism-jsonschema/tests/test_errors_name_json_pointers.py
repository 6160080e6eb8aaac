"""Errors: ``<json-pointer>: <message>``, at most ``max_errors``, bounded messages, both engines."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import ToolArgumentValidationError
from prism.core._validation import render_validation_errors as render_errors
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._errors import MESSAGE_LIMIT

OBJECTS = {"type": "object", "additionalProperties": {"type": "integer"}}


@pytest.mark.parametrize(
    ("instance", "pointer"),
    [({"a": "x"}, "/a"), ({"a.b": "x"}, "/a.b"), ({"a/b": "x"}, "/a~1b"), ({"a~b": "x"}, "/a~0b"),
     ({"a[0]": "x"}, "/a[0]"), ({"": "x"}, "/"), ({"é ✓": "x"}, "/é ✓"), ({"a b": "x"}, "/a b")],
)  # fmt: skip
def test_pointers_survive_awkward_property_names(engine: str, instance: Any, pointer: str) -> None:
    result = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)
    ).validate(OBJECTS, instance)
    assert not result.ok
    if engine == "jsonschema-rs" and pointer == "/":
        pointer = ""  # jsonschema-rs drops an empty-string segment from instance_path
    assert [e.path for e in result.errors] == [pointer]


def test_pointers_into_nested_arrays_and_objects(engine: str) -> None:
    schema = {
        "type": "object",
        "properties": {
            "rows": {"type": "array", "items": {"type": "object", "properties": {
                "cells": {"type": "array", "items": {"type": "number"}}}}},
        },
    }  # fmt: skip
    instance = {"rows": [{"cells": [1]}, {"cells": [1, 2, "x"]}]}
    result = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)
    ).validate(schema, instance)
    assert [e.path for e in result.errors] == ["/rows/1/cells/2"]


def test_ambiguous_dotted_names_resolve_against_the_instance(engine: str) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "object"}, "a.b": {"type": "integer"}}}
    result = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)
    ).validate(schema, {"a": {"b": 1}, "a.b": "x"})
    assert [e.path for e in result.errors] == ["/a.b"]


@pytest.mark.parametrize("max_errors", [1, 3, 64])
def test_at_most_max_errors(engine: str, max_errors: int) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_errors=max_errors)
    )
    instance = {f"k{i}": "x" for i in range(100)}
    result = validator.validate(OBJECTS, instance)
    assert len(result.errors) == min(max_errors, 100)
    assert all(e.path is not None and e.path.startswith("/k") for e in result.errors)


def test_messages_are_bounded(engine: str) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "integer"}}}
    result = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)
    ).validate(schema, {"s": "x" * 100_000})
    (error,) = result.errors
    assert len(error.message) <= MESSAGE_LIMIT


def test_rendering_joins_pointer_and_message() -> None:
    errors = (
        ToolArgumentValidationError(path="/a/0", message="must be string"),
        ToolArgumentValidationError(path="", message="must contain ['q'] properties"),
        ToolArgumentValidationError(path=None, message="schema rejected"),
    )
    assert render_errors(errors) == (
        "/a/0: must be string; must contain ['q'] properties; schema rejected"
    )
    assert render_errors(()) == "arguments are invalid"


def test_fastjsonschema_messages_lose_the_data_prefix() -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="fastjsonschema")
    )
    result = validator.validate({"properties": {"n": {"maximum": 3}}}, {"n": 4})
    (error,) = result.errors
    assert error.path == "/n"
    assert error.message == "must be smaller than or equal to 3"
