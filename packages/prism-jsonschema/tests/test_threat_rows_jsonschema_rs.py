"""Threat rows 1, 2, 3, E7 through the prism-conformance plugin with engine="jsonschema-rs"."""

from __future__ import annotations

import dataclasses

import pytest

from prism.conformance import ConformanceSubjects, default_subjects, make_conformance_tests
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions


def _rust_validator(
    *, options: JsonSchemaValidatorOptions | None = None
) -> JsonSchemaArgumentValidator:
    rust = dataclasses.replace(options or JsonSchemaValidatorOptions(), engine="jsonschema-rs")
    return JsonSchemaArgumentValidator(options=rust)


@pytest.fixture
def prism_conformance_subjects() -> ConformanceSubjects:
    """The default subjects with the Rust engine plugged in."""
    return dataclasses.replace(default_subjects(), json_schema_validator_factory=_rust_validator)


test_threat_rows = make_conformance_tests(package="prism-jsonschema")


def test_the_override_really_uses_the_rust_engine(
    prism_conformance_subjects: ConformanceSubjects,
) -> None:
    factory = prism_conformance_subjects.json_schema_validator_factory
    assert factory is not None
    assert factory().options.engine == "jsonschema-rs"
