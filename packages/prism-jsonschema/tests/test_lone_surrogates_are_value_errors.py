"""A string or key holding a lone surrogate fails as a value, at its path, on both engines.

jsonschema-rs reads text as UTF-8 and raised ``UnicodeEncodeError``, reported with an empty
path as "schema engine failed" (the form documented for rejected schemas only).
"""

from __future__ import annotations

from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


@pytest.mark.parametrize(
    ("schema", "value", "path"),
    [
        ({"type": "object", "properties": {"x": {"const": "a"}}}, {"x": "\ud800"}, "/x"),
        ({"type": "object", "properties": {"x": {"enum": ["a", "b"]}}}, {"x": "a\udfff"}, "/x"),
        (
            {"type": "object", "properties": {"x": {"pattern": "^a$"}}},
            {"x": "\ud83d"},
            "/x",
        ),
        (
            {"type": "object", "properties": {"x": {"const": 1}}},
            {"x": ["a", {"k\udc00": 1}]},
            "/x",  # fastjsonschema: the const fails at /x; jsonschema-rs: the key at /x/1
        ),
    ],
)
def test_a_lone_surrogate_fails_the_value_at_its_path(
    engine: Any, schema: dict[str, Any], value: Any, path: str
) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    result = validator.validate(schema, value)
    assert not result.ok
    [error] = result.errors
    assert error.path is not None
    assert error.path.startswith(path)
    assert "schema engine failed" not in error.message
    assert "schema rejected" not in error.message


def test_jsonschema_rs_names_the_surrogate_and_where_it_is() -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs")
    )
    schema = {"type": "object", "properties": {"x": {"const": 1}}}
    result = validator.validate(schema, {"x": ["a", {"k\udc00": 1}]})
    assert [(e.path, "U+DC00" in e.message) for e in result.errors] == [("/x/1", True)]
    result = validator.validate(schema, {"x": "ab\ud800"})
    assert [(e.path, "index 2" in e.message) for e in result.errors] == [("/x", True)]
