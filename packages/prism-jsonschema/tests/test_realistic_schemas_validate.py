"""Real-world tool schemas compile, and valid/invalid instances come out right on both engines."""

from __future__ import annotations

from typing import Any

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def test_valid_instances_pass(validator: JsonSchemaArgumentValidator, case: Any) -> None:
    for instance in case.valid:
        result = validator.validate(case.schema, instance)
        assert result.ok, (case.name, instance, result.errors)
        assert result.errors == ()


def test_invalid_instances_fail_with_a_message(
    validator: JsonSchemaArgumentValidator, case: Any
) -> None:
    for instance in case.invalid:
        result = validator.validate(case.schema, instance)
        assert not result.ok, (case.name, instance)
        assert result.errors, (case.name, instance)
        for error in result.errors:
            assert error.message
            assert "rejected" not in error.message, error.message
            assert error.path is None or error.path == "" or error.path.startswith("/")


def test_engines_agree_on_every_instance(case: Any) -> None:
    fast = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="fastjsonschema"))
    rs = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
    for instance in (*case.valid, *case.invalid):
        assert fast.validate(case.schema, instance).ok == rs.validate(case.schema, instance).ok, (
            case.name,
            instance,
        )


def test_at_least_twenty_realistic_schemas(case: Any) -> None:
    from prism_jsonschema_tests_realistic_schemas import CASES  # loaded by conftest

    assert len(CASES) >= 20
    assert case.valid
    assert case.invalid
