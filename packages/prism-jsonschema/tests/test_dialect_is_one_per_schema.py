"""A schema has one dialect, named by the root's ``$schema``: a subschema naming one is refused.

Read under the root's draft, a subschema's ``$schema`` (and that draft's keywords with it) was
dropped, so values the named dialect forbids passed. 2020-12 says ``$schema`` SHOULD appear only
in a resource root, and Prism allows no embedded resource (``$id`` only at the root): a
``$schema`` anywhere below the root refuses the schema, even when it names the root's draft.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D19 = "https://json-schema.org/draft/2019-09/schema"
D20 = "https://json-schema.org/draft/2020-12/schema"


def _validator(engine: str) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"$schema": D4, "properties": {"x": {"$schema": D7, "const": "ls"}}}, {"x": "rm -rf /"}),
        ({"$schema": D4, "properties": {"x": {"$schema": D20, "const": 1}}}, {"x": 2}),
        (
            {
                "$schema": D7,
                "properties": {"x": {"$schema": D20, "prefixItems": [{"type": "integer"}]}},
            },
            {"x": ["s"]},
        ),
        (
            {
                "$schema": D7,
                "properties": {"x": {"$schema": D20, "dependentRequired": {"a": ["b"]}}},
            },
            {"x": {"a": 1}},
        ),
        (
            {
                "$schema": D19,
                "properties": {"x": {"$schema": D20, "prefixItems": [{"type": "integer"}]}},
            },
            {"x": ["s"]},
        ),
        (
            {
                "$schema": D6,
                "properties": {"x": {"$schema": D7, "if": {"const": 1}, "then": False}},
            },
            {"x": 1},
        ),
    ],
)
def test_a_subschema_naming_another_dialect_is_refused_not_read_as_the_roots(
    engine: str, schema: dict[str, Any], value: Any
) -> None:
    cls = jsonschema.validators.validator_for(schema)
    assert not cls(schema).is_valid(value)  # control: the reference refuses the value
    result = _validator(engine).validate(schema, value)
    assert not result.ok
    [error] = result.errors
    assert error.path is None  # the schema is refused
    assert "'$schema' at #/properties/x/$schema" in error.message


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": D20, "properties": {"x": {"$schema": D20, "type": "string"}}},
        {"properties": {"x": {"items": {"$schema": D20}}}},
        {"$defs": {"a": {"$schema": D7}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"$schema": D7, "definitions": {"a": {"allOf": [{"$schema": D7}]}}},
    ],
)
def test_a_subschema_naming_the_roots_own_dialect_is_refused_too(
    engine: str, schema: dict[str, Any]
) -> None:
    result = _validator(engine).validate(schema, {"x": "s"})
    assert not result.ok
    assert result.errors[0].path is None
    assert "'$schema' at" in result.errors[0].message


@pytest.mark.parametrize("root", [D4, D6, D7, D19, D20])
def test_the_roots_schema_and_schema_shaped_data_are_fine(engine: str, root: str) -> None:
    """``$schema`` at the root names the draft; inside ``const``/``enum`` it is opaque data."""
    schema = {
        "$schema": root,
        "type": "object",
        "properties": {"x": {"enum": [{"$schema": D20}]}},
    }
    validator = _validator(engine)
    assert validator.validate(schema, {"x": {"$schema": D20}}).ok
    bad = validator.validate(schema, {"x": {"$schema": D7}})
    assert not bad.ok
    assert bad.errors[0].path is not None  # the value is invalid, the schema is fine
