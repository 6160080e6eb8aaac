"""Red team round 3 (bypass): schemas that say one thing and validate another, found from outside.

Each finding is a value the ``jsonschema`` package (the reference) calls invalid and Prism accepts.
The finding tests are strict xfails (they fail today); each has an unmarked control proving the
reference rejects the value, so a fix that makes the test pass is checked against the reference.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any, Literal

import jsonschema
import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"
EngineName = Literal["fastjsonschema", "jsonschema-rs"]
FJS: EngineName = "fastjsonschema"
RS: EngineName = "jsonschema-rs"


def reference_valid(schema: dict[str, Any], value: Any, *, formats: bool = False) -> bool:
    """The ``jsonschema`` package's verdict, with its format checker when formats are asserted."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    return bool(cls(schema, format_checker=checker).is_valid(value))


def prism_ok(
    engine: EngineName, schema: dict[str, Any], value: Any, *, formats: bool = False
) -> bool:
    """Prism's verdict through the public validator."""
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
    return JsonSchemaArgumentValidator(options=options).validate(schema, value).ok


def _x(sub: dict[str, Any], draft: str = D2020) -> dict[str, Any]:
    return {"$schema": draft, "type": "object", "properties": {"x": sub}}


# --- Finding 1: a format checked "at least as strictly" widens under `not` / `if` / `oneOf` ---
# docs/jsonschema.md: "a stricter check can reject a value, never pass one the format forbids".
# Under negation a stricter check passes exactly the values it over-rejects.
FORMAT_NEGATION = [
    # (id, engine, schema, value)
    ("not-email-double-at", FJS, _x({"not": {"format": "email"}}), {"x": "a@@b.c"}),
    ("not-email-double-at", RS, _x({"not": {"format": "email"}}), {"x": "a@@b.c"}),
    ("not-email-dot-local", FJS, _x({"not": {"format": "email"}}), {"x": ".a@b.c"}),
    ("not-email-dot-local", RS, _x({"not": {"format": "email"}}), {"x": ".a@b.c"}),
    ("not-email-no-dot-domain", FJS, _x({"not": {"format": "email"}}), {"x": "a@b"}),
    ("not-email-space", RS, _x({"not": {"format": "email"}}), {"x": "a b@c.d"}),
    ("not-email-d4", FJS, _x({"not": {"format": "email"}}, D4), {"x": "a@"}),
    ("not-email-d7", RS, _x({"not": {"format": "email"}}, D7), {"x": "a@b..c"}),
    ("not-idn-email-d7", FJS, _x({"not": {"format": "idn-email"}}, D7), {"x": "a@b"}),
    (
        "not-idn-email-d6-unasserted-by-reference",
        RS,
        _x({"not": {"format": "idn-email"}}, D6),
        {"x": "a@"},
    ),
    (
        "not-ipv6-trailing-compression",
        FJS,
        _x({"not": {"format": "ipv6"}}),
        {"x": "1:2:3:4:5:6:7::"},
    ),
    # fastjsonschema's ipv6 regex also refuses valid compressed forms the reference accepts
    ("not-ipv6-zero-groups", FJS, _x({"not": {"format": "ipv6"}}), {"x": "0::0000"}),
    (
        "not-ipv6-seven-groups-compressed",
        FJS,
        _x({"not": {"format": "ipv6"}}, D7),
        {"x": "0:0:FFFF:fe80:fe80::ffff:FFFF"},
    ),
    (
        "not-uuid-plus-sign",
        FJS,
        _x({"not": {"format": "uuid"}}),
        {"x": "+2345678-1234-1234-1234-123456789abc"},
    ),
    (
        "not-uuid-plus-sign",
        RS,
        _x({"not": {"format": "uuid"}}),
        {"x": "+2345678-1234-1234-1234-123456789abc"},
    ),
    ("if-email-then-false", FJS, _x({"if": {"format": "email"}, "then": False}), {"x": "a@@b.c"}),
    ("if-email-then-false", RS, _x({"if": {"format": "email"}, "then": False}), {"x": "a@@b.c"}),
    (
        "if-ipv6-then-false",
        FJS,
        _x({"if": {"format": "ipv6"}, "then": False}),
        {"x": "1:2:3:4:5:6:7::"},
    ),
    (
        "oneOf-email-or-string",
        FJS,
        _x({"oneOf": [{"format": "email"}, {"type": "string"}]}),
        {"x": "a@@b.c"},
    ),
    (
        "oneOf-email-or-string",
        RS,
        _x({"oneOf": [{"format": "email"}, {"type": "string"}]}),
        {"x": "a@@b.c"},
    ),
]


@pytest.mark.parametrize(
    ("engine", "schema", "value"),
    [pytest.param(e, s, v, id=f"{i}-{e}") for i, e, s, v in FORMAT_NEGATION],
)
def test_control_reference_rejects_negated_format(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert engine in (FJS, RS)
    assert not reference_valid(schema, value, formats=True)


@pytest.mark.parametrize(
    ("engine", "schema", "value"),
    [pytest.param(e, s, v, id=f"{i}-{e}") for i, e, s, v in FORMAT_NEGATION],
)
def test_finding1_negated_format_never_widens(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert not prism_ok(engine, schema, value, formats=True)


# --- Finding 2: Prism's exact multipleOf (stricter than the reference) widens under `not` ---
# 1e308 is a multiple of 0.7 and 1e300 of 3 for the reference (float division); Prism's exact
# decimal check says no, so `not: {multipleOf}` passes values the reference rejects.
MULTIPLE_NEGATION = [
    ("1e308-of-0.7", _x({"not": {"multipleOf": 0.7}}), {"x": 1e308}),
    ("1e308-of-0.7-d4", _x({"not": {"multipleOf": 0.7}}, D4), {"x": 1e308}),
    ("1e300-of-3", _x({"not": {"multipleOf": 3}}), {"x": 1e300}),
    # 1e308 is an exact multiple of 0.5; Prism's float check overflows (1e308 / 0.5 = inf)
    ("1e308-of-0.5", _x({"not": {"multipleOf": 0.5}}), {"x": 1e308}),
    ("1e308-of-0.5-d7", _x({"not": {"multipleOf": 0.5}}, D7), {"x": 1e308}),
    ("if-1e300-of-3", _x({"if": {"multipleOf": 3}, "then": False}), {"x": 1e300}),
]


@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in MULTIPLE_NEGATION]
)
def test_control_reference_rejects_negated_multiple(schema: dict[str, Any], value: Any) -> None:
    assert not reference_valid(schema, value)


@pytest.mark.parametrize("engine", [FJS, RS])
@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in MULTIPLE_NEGATION]
)
def test_finding2_negated_multiple_of_never_widens(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert not prism_ok(engine, schema, value)


# --- Finding 3: fastjsonschema applies 2020-12-foreign `additionalItems` next to `prefixItems` ---
# In 2020-12 `additionalItems` is not a keyword (ignored); the lowering of prefixItems to
# items/additionalItems lets the stale one act, so `not` of it passes [1, 2].
FOREIGN_ADDITIONAL_ITEMS = _x({"not": {"prefixItems": [{}], "additionalItems": False}})


def test_control_reference_rejects_foreign_additional_items_under_not() -> None:
    assert not reference_valid(FOREIGN_ADDITIONAL_ITEMS, {"x": [1, 2]})
    assert prism_ok(RS, FOREIGN_ADDITIONAL_ITEMS, {"x": [1, 2]}) is False


def test_finding3_foreign_additional_items_is_ignored_in_2020() -> None:
    assert not prism_ok(FJS, FOREIGN_ADDITIONAL_ITEMS, {"x": [1, 2]})


# --- Finding 4: fastjsonschema follows a 2019-09 `$recursiveRef` that is not "#" as a `$ref` ---
# 2019-09 allows only "#" there; the reference (and jsonschema-rs) resolve any $recursiveRef to
# the root, so `{"x": {"y": "rm -rf /"}}` fails `y: integer` there. fastjsonschema's lowering
# turns it into `$ref: "#/$defs/obj"` and the nested `y` is never checked.
RECURSIVE_POINTER = [
    (
        "to-any",
        {
            "$schema": D2019,
            "type": "object",
            "properties": {"x": {"$recursiveRef": "#/$defs/any"}},
            "$defs": {"any": True},
        },
        {"x": 5},
    ),
    (
        "to-object",
        {
            "$schema": D2019,
            "type": "object",
            "properties": {"x": {"$recursiveRef": "#/$defs/obj"}, "y": {"type": "integer"}},
            "$defs": {"obj": {"type": "object"}},
        },
        {"x": {"y": "rm -rf /"}},
    ),
    (
        "to-sibling-property",
        {
            "$schema": D2019,
            "type": "object",
            "properties": {"x": {"$recursiveRef": "#/properties/y"}, "y": {"type": "integer"}},
            "additionalProperties": False,
        },
        {"x": 5},
    ),
]


@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in RECURSIVE_POINTER]
)
def test_control_reference_resolves_recursive_ref_to_the_root(
    schema: dict[str, Any], value: Any
) -> None:
    assert not reference_valid(schema, value)
    assert not prism_ok(RS, schema, value)


@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in RECURSIVE_POINTER]
)
def test_finding4_recursive_ref_is_never_a_pointer(schema: dict[str, Any], value: Any) -> None:
    assert not prism_ok(FJS, schema, value)


# --- Finding 5: `$schema` spellings the reference does not know are read as an older draft ---
# docs/jsonschema.md accepts drafts "http or https"; the reference knows only the published
# identifiers (http for 04/06/07, https for 2019-09/2020-12) and reads any other `$schema` as
# 2020-12. Prism picks the older draft, where `$ref` siblings and `dependentRequired` or
# `prefixItems` are ignored, so the value passes what the reference's reading forbids.
def _sibling(uri: str) -> dict[str, Any]:
    return {
        "$schema": uri,
        "properties": {"x": {"$ref": "#/definitions/s", "maxLength": 2}},
        "definitions": {"s": {"type": "string"}},
    }


SCHEMA_SPELLINGS = [
    (
        "https-draft7-ref-sibling",
        _sibling("https://json-schema.org/draft-07/schema#"),
        {"x": "abcdef"},
    ),
    ("https-draft7-no-hash", _sibling("https://json-schema.org/draft-07/schema"), {"x": "abcdef"}),
    (
        "https-draft6-ref-sibling",
        _sibling("https://json-schema.org/draft-06/schema#"),
        {"x": "abcdef"},
    ),
    (
        "https-draft4-ref-sibling",
        _sibling("https://json-schema.org/draft-04/schema#"),
        {"x": "abcdef"},
    ),
    (
        "https-draft7-dependent-required",
        {"$schema": "https://json-schema.org/draft-07/schema#", "dependentRequired": {"a": ["b"]}},
        {"a": 1},
    ),
    (
        "http-2019-prefix-items",
        {
            "$schema": "http://json-schema.org/draft/2019-09/schema",
            "properties": {"x": {"prefixItems": [{"type": "string"}]}},
        },
        {"x": [1]},
    ),
]


@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in SCHEMA_SPELLINGS]
)
def test_control_reference_reads_unknown_schema_uris_as_2020(
    schema: dict[str, Any], value: Any
) -> None:
    assert jsonschema.validators.validator_for(schema, default=None) is None
    assert not reference_valid(schema, value)


@pytest.mark.parametrize("engine", [FJS, RS])
@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in SCHEMA_SPELLINGS]
)
def test_finding5_schema_uri_spelling_never_widens(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert not prism_ok(engine, schema, value)


# --- Finding 6: `\p{...}` is read with RE2's older Unicode tables, not current ECMA-262 -------
# ECMA-262 reads property escapes with the current Unicode (V8 here: Unicode 17). RE2's tables
# predate Unicode 16, so U+1C89 (CYRILLIC CAPITAL LETTER TJE, 16.0) is "not a letter" to Prism:
# `^\P{L}+$` ("no letters") accepts it, and so does `not: {pattern: "^\p{L}+$"}`; a
# patternProperties rule for letter-only names skips it on fastjsonschema.
NEW_LETTER = "\u1c89"
UNICODE_VERSION = [
    ("non-letter-pattern", FJS, _x({"pattern": "^\\P{L}+$"}), {"x": NEW_LETTER}),
    ("non-letter-pattern", RS, _x({"pattern": "^\\P{L}+$"}), {"x": NEW_LETTER}),
    ("negated-class", FJS, _x({"pattern": "^[^\\p{L}]+$"}), {"x": NEW_LETTER}),
    ("not-letter-pattern", FJS, _x({"not": {"pattern": "^\\p{L}+$"}}), {"x": NEW_LETTER}),
    ("not-letter-pattern", RS, _x({"not": {"pattern": "^\\p{L}+$"}}), {"x": NEW_LETTER}),
    (
        "pattern-properties",
        FJS,
        {"type": "object", "patternProperties": {"^\\p{L}+$": {"type": "integer"}}},
        {NEW_LETTER: "rm -rf /"},
    ),
    ("property-names", RS, {"propertyNames": {"pattern": "^\\P{L}+$"}}, {NEW_LETTER: 1}),
]


def _v8_matches(pattern: str, text: str) -> bool:
    """V8's verdict for ``new RegExp(pattern, "u").test(text)``."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the V8 oracle)")
    script = (
        "const [p, s] = JSON.parse(process.argv[1]);"
        "process.stdout.write(String(new RegExp(p, 'u').test(s)))"
    )
    out = subprocess.run(
        [node, "-e", script, json.dumps([pattern, text])],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout == "true"


def test_control_v8_reads_u1c89_as_a_letter() -> None:
    assert _v8_matches("^\\p{L}+$", NEW_LETTER)
    assert not _v8_matches("^\\P{L}+$", NEW_LETTER)
    assert not _v8_matches("^[^\\p{L}]+$", NEW_LETTER)


@pytest.mark.parametrize(
    ("engine", "schema", "value"),
    [pytest.param(e, s, v, id=f"{i}-{e}") for i, e, s, v in UNICODE_VERSION],
)
def test_finding6_property_escapes_follow_current_unicode(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert not prism_ok(engine, schema, value)


# --- Finding 1 through dispatch: the handler runs with a value the schema forbids ---
@pytest.mark.anyio
@pytest.mark.parametrize("engine", [FJS, RS])
async def test_finding1_through_dispatch_the_handler_never_runs(engine: EngineName) -> None:
    schema = _x({"not": {"format": "email"}})
    seen: list[Any] = []

    async def handler(args: Any, context: ToolExecutionContext) -> str:
        seen.append(args)
        return "ran"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=schema)])
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=True)
    gates = ToolGates(validator=create_json_schema_tool_argument_validator(options=options))
    result = await dispatch_tool_call(
        ToolCall(id="1", name="t", arguments={"x": "a@@b.c"}), registry=registry, gates=gates
    )
    assert not reference_valid(schema, {"x": "a@@b.c"}, formats=True)
    assert seen == []
    assert result.error is not None and result.error.code == "validation_failed"
