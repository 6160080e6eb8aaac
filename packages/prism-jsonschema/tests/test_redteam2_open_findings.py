"""Outside red team, round 2: attacks that still BREAK a claim of issue 25 / docs/jsonschema.md.

Each test asserts the claimed behaviour, so it fails while the attack works. The module is
skipped for the integrator, who removes the skip once the finding is fixed.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
)

pytestmark = pytest.mark.skip(reason="open red-team findings for the integrator")

ENGINES = ("fastjsonschema", "jsonschema-rs")

# --- (1) bypass: a class range with a shorthand endpoint -------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"^[!-\d]+$", "#"),  # spelled out as [!-0-9]: the range ! .. 0 appears
        (r"^[!-\d]+$", "/"),
        (r"^[%-\w]+$", "+"),  # [%-0-9A-Za-z_]: the range % .. 0
        (r"^[.-\d]+$", "/"),
    ],
)
def test_a_class_range_ending_in_a_shorthand_is_not_widened(
    engine: Any, pattern: str, text: str
) -> None:
    # Control: ECMA-262 with the u flag (the documented dialect) rejects the pattern as a syntax
    # error (V8: "Invalid character class"); without u (Annex B) it is the set {!, -, digits},
    # which does not hold the text. Python's re refuses it too, so the jsonschema package never
    # says valid.
    with pytest.raises(re.error):
        re.compile(pattern)
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": pattern}},
    }
    result = validator.validate(schema, {"x": text})
    assert not result.ok, f"{pattern!r} accepted {text!r} (no ECMA reading holds it)"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_surrogate_pair_escape_in_a_class_is_one_code_point(engine: str) -> None:
    """With the u flag, ``[\\uD83D\\uDE00]`` is the class {U+1F600} (V8: "\\ud83d" does not
    match); Prism reads two lone surrogates and accepts "\\ud83d" (and calls "\U0001f600" invalid
    against ``^\\uD83D\\uDE00$``)."""
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": "^[\\uD83D\\uDE00]$"}},
    }
    result = validator.validate(schema, {"x": "\ud83d"})
    assert not result.ok, "a lone high surrogate matched the class of one astral code point"


# --- (1) bypass: a $schema inside a subschema switches the dialect for the reference --------

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D19 = "https://json-schema.org/draft/2019-09/schema"
D20 = "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("engine", ENGINES)
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
                "$schema": "http://json-schema.org/draft-06/schema#",
                "properties": {"x": {"$schema": D7, "if": {"const": 1}, "then": False}},
            },
            {"x": 1},
        ),
    ],
)
def test_a_subschema_naming_another_dialect_is_refused_not_read_as_the_roots(
    engine: str, schema: dict[str, Any], value: Any
) -> None:
    """The ``$schema`` of a subschema is dropped and that dialect's keywords with it, so the
    value passes; the ``jsonschema`` package honours the inner ``$schema`` and refuses it.
    2020-12 says ``$schema`` MUST NOT appear in a non-resource-root schema: refuse it."""
    cls = jsonschema.validators.validator_for(schema)
    assert not cls(schema).is_valid(value)  # control: the reference refuses the value
    result = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine)
    ).validate(schema, value)
    assert not result.ok, "Prism validated the subschema under the root's dialect and passed it"


# --- (1) bypass: idn-hostname wider than IDNA2008 with validate_formats ---------------------


@pytest.mark.parametrize(
    ("engine", "hostname"),
    [
        ("fastjsonschema", "xn--a.com"),  # not valid punycode
        ("fastjsonschema", "xn--.com"),  # empty punycode
        ("fastjsonschema", "ab--c.com"),  # hyphens in positions 3 and 4 (RFC 5891 4.2.3.1)
        ("fastjsonschema", "a-.com"),  # a label ending in a hyphen
        ("fastjsonschema", "xn--ls8h.la"),  # an emoji A-label (DISALLOWED in IDNA2008)
        ("jsonschema-rs", "\u01c5.com"),  # titlecase digraph (DISALLOWED)
        ("jsonschema-rs", "\ufb00.com"),  # ligature ff (DISALLOWED)
    ],
)
def test_no_idn_hostname_the_reference_refuses_is_valid(engine: Any, hostname: str) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "format": "idn-hostname"}},
    }
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    reference = jsonschema.Draft202012Validator(schema, format_checker=checker)
    assert not reference.is_valid({"x": hostname})  # control: the idna package refuses it
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, validate_formats=True)
    )
    assert not validator.validate(schema, {"x": hostname}).ok
