"""Every bound option has its documented default, accepts exactly its hard cap, refuses the rest."""

from __future__ import annotations

import dataclasses
import math

import pytest

from prism.jsonschema import HARD_CAPS, JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

DEFAULTS = {
    "max_schema_bytes": 262_144,
    "max_schema_depth": 64,
    "max_schema_nodes": 10_000,
    "max_refs": 128,
    "max_pattern_length": 1_000,
    "cache_size": 256,
    "max_instance_depth": 64,
    "max_instance_properties": 1_000,
    "max_string_length": 1_000_000,
    "max_array_items": 10_000,
    "max_errors": 8,
    "max_compile_cost": 1_048_576,
    "max_cache_bytes": 67_108_864,
    "max_pattern_input_length": 65_536,
    "max_expanded_size": 10_000,
    "max_validation_work": 100_000,
}
CAPS = {
    "max_schema_bytes": 1_048_576,
    "max_schema_depth": 128,
    "max_schema_nodes": 100_000,
    "max_refs": 1_024,
    "max_pattern_length": 10_000,
    "cache_size": 1_024,
    "max_instance_depth": 128,
    "max_instance_properties": 100_000,
    "max_string_length": 8_388_608,
    "max_array_items": 100_000,
    "max_errors": 64,
    "max_compile_cost": 16_777_216,
    "max_cache_bytes": 1_073_741_824,
    "max_pattern_input_length": 1_048_576,
    "max_expanded_size": 1_000_000,
    "max_validation_work": 100_000_000,
}


def test_defaults_match_the_design() -> None:
    options = JsonSchemaValidatorOptions()
    for name, default in DEFAULTS.items():
        assert getattr(options, name) == default, name
    assert options.missing_schema == "allow"
    assert options.engine == "fastjsonschema"
    assert options.validate_formats is False
    assert dict(HARD_CAPS) == CAPS


def test_options_are_frozen() -> None:
    options = JsonSchemaValidatorOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_errors = 3  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(CAPS))
def test_exactly_the_hard_cap_is_accepted(name: str) -> None:
    assert getattr(JsonSchemaValidatorOptions(**{name: CAPS[name]}), name) == CAPS[name]
    assert getattr(JsonSchemaValidatorOptions(**{name: 1}), name) == 1


@pytest.mark.parametrize("name", sorted(CAPS))
@pytest.mark.parametrize("bad", ["above", 0, -1, True, False, 1.5, math.nan, math.inf, "8", None])
def test_invalid_bound_values_raise_naming_the_option(name: str, bad: object) -> None:
    value = CAPS[name] + 1 if bad == "above" else bad
    error = ValueError if type(value) is int else TypeError  # a wrong type is a TypeError
    with pytest.raises(error, match=name) as info:
        JsonSchemaValidatorOptions(**{name: value})
    assert f"{CAPS[name]:,}" in str(info.value)


@pytest.mark.parametrize(
    ("name", "bad"),
    [("missing_schema", "deny"), ("missing_schema", None), ("engine", "jsonschema"),
     ("engine", 1), ("validate_formats", 1), ("validate_formats", "yes")],
)  # fmt: skip
def test_invalid_choices_raise_naming_the_option(name: str, bad: object) -> None:
    error = ValueError if isinstance(bad, str) and name != "validate_formats" else TypeError
    with pytest.raises(error, match=name):
        JsonSchemaValidatorOptions(**{name: bad})


def test_messages_name_the_owner_and_field() -> None:
    with pytest.raises(ValueError, match=r"^JsonSchemaValidatorOptions\.cache_size must be"):
        JsonSchemaValidatorOptions(cache_size=0)
    with pytest.raises(ValueError, match=r"^JsonSchemaValidatorOptions\.engine must be one of"):
        JsonSchemaValidatorOptions(engine="rust")  # type: ignore[arg-type]


def test_options_are_typed_keywords_only() -> None:
    with pytest.raises(TypeError):
        JsonSchemaValidatorOptions(max_bytes=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        JsonSchemaValidatorOptions(262_144)  # type: ignore[misc]
    with pytest.raises(TypeError):
        JsonSchemaArgumentValidator(max_errors=3)  # type: ignore[call-arg]


def test_validator_takes_one_options_object() -> None:
    options = JsonSchemaValidatorOptions(max_errors=64)
    assert JsonSchemaArgumentValidator(options=options).options is options
    assert JsonSchemaArgumentValidator().options == JsonSchemaValidatorOptions()
    with pytest.raises(TypeError, match="JsonSchemaValidatorOptions"):
        JsonSchemaArgumentValidator(options={"max_errors": 3})  # type: ignore[arg-type]


def test_the_validator_satisfies_the_core_protocol(engine: str) -> None:
    from prism.core import ToolArgumentValidator

    assert isinstance(
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine)),
        ToolArgumentValidator,
    )


def test_missing_rust_engine_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import prism.jsonschema._validator as module

    monkeypatch.setattr(module, "rs_available", lambda: False)
    with pytest.raises(ImportError, match=r"prism-jsonschema\[rs\]"):
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
    assert JsonSchemaArgumentValidator().options.engine == "fastjsonschema"
