"""Red team round 4 (bypass): attacks on the round-3 fixes that held, kept as regressions.

Found from outside (public API and docs only). The reference is the ``jsonschema`` package, with
its format checker when formats are asserted. Each case is a value the reference rejects; Prism
must not accept it (most are refused as schemas, the claim under attack). Two verdicts where
Prism follows the specification and the reference does not are pinned at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import jsonschema
import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"
EngineName = Literal["fastjsonschema", "jsonschema-rs"]
ENGINES: tuple[EngineName, ...] = ("fastjsonschema", "jsonschema-rs")
Verdict = Literal["valid", "invalid", "refused"]
_VALIDATORS: dict[tuple[EngineName, bool], JsonSchemaArgumentValidator] = {}


def reference_valid(schema: dict[str, Any], value: Any, *, formats: bool = False) -> bool:
    """The ``jsonschema`` package's verdict, with its format checker when formats are asserted."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    return bool(cls(schema, format_checker=checker).is_valid(value))


def verdict(
    engine: EngineName, schema: dict[str, Any], value: Any, *, formats: bool = False
) -> Verdict:
    """Prism's verdict through the public validator: a refused schema has an error without path."""
    key = (engine, formats)
    if key not in _VALIDATORS:
        options = JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
        _VALIDATORS[key] = JsonSchemaArgumentValidator(options=options)
    result = _VALIDATORS[key].validate(schema, value)
    if result.ok:
        return "valid"
    return "refused" if result.errors[0].path is None else "invalid"


def _x(sub: Any, draft: str = D2020, *, y: Any = None, **root: Any) -> dict[str, Any]:
    """An object schema with ``sub`` at property ``x`` (and ``y`` when given)."""
    properties = {"x": sub} if y is None else {"x": sub, "y": y}
    return {"$schema": draft, "type": "object", "properties": properties, **root}


# --- 1. A stricter check reached from a negated or mixed position by every route tried ---
# Each stricter check (S) fails on Prism and passes on the reference for the value it is paired
# with, so wherever S ends up negated the reference rejects what a missed refusal would accept.
STRICTER: list[tuple[str, dict[str, Any], Any, bool]] = [
    ("email", {"format": "email"}, "a@@b.c", True),
    ("float-multipleOf", {"multipleOf": 3.0}, 1e20, False),
]


def _negated_routes(s: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(id, schema, how the value is shaped): routes by which ``s`` is evaluated negated."""
    yield (
        "ref-from-both",
        _x({"$ref": "#/$defs/s"}, y={"not": {"$ref": "#/$defs/s"}}, **{"$defs": {"s": s}}),
        "v",
    )
    yield "ref-tilde1", _x({"not": {"$ref": "#/$defs/a~1b"}}, **{"$defs": {"a/b": s}}), "v"
    yield "ref-tilde0", _x({"not": {"$ref": "#/$defs/a~0b"}}, **{"$defs": {"a~b": s}}), "v"
    yield "ref-pct20", _x({"not": {"$ref": "#/$defs/a%20b"}}, **{"$defs": {"a b": s}}), "v"
    yield "ref-pct-dollar", _x({"not": {"$ref": "#/%24defs/a%62"}}, **{"$defs": {"ab": s}}), "v"
    yield "ref-empty-key", _x({"not": {"$ref": "#/$defs/"}}, **{"$defs": {"": s}}), "v"
    yield "ref-into-properties", _x({"not": {"$ref": "#/properties/y"}}, y=s), "v"
    yield "ref-into-items", _x({"not": {"$ref": "#/properties/y/items"}}, y={"items": s}), "v"
    yield "ref-anchor", _x({"not": {"$ref": "#s"}}, **{"$defs": {"s": {"$anchor": "s", **s}}}), "v"
    yield (
        "dynamicRef-pointer",
        _x({"not": {"$dynamicRef": "#/$defs/s"}}, **{"$defs": {"s": s}}),
        "v",
    )
    yield "ref-root", _x({"not": {"$ref": "#"}}, y=s), "v"
    yield (
        "ref-chain-d7",
        _x(
            {"not": {"$ref": "#/definitions/a"}},
            D7,
            definitions={"a": {"$ref": "#/definitions/b"}, "b": s},
        ),
        "v",
    )
    yield "ref-d4", _x({"not": {"$ref": "#/definitions/s"}}, D4, definitions={"s": s}), "v"
    yield (
        "recursiveRef-root",
        {
            "$schema": D2019,
            "type": "object",
            "anyOf": [{"type": "object"}, s],
            "properties": {"x": {"not": {"$recursiveRef": "#"}}},
        },
        "v",
    )
    yield "if-without-then", _x({"if": s}), "v"
    yield "if-then", _x({"if": s, "then": False}), "v"
    yield "if-else", _x({"if": s, "else": False}), "v"
    yield "oneOf-single", _x({"oneOf": [s]}), "v"
    yield "not-not", _x({"not": {"not": s}}), "v"
    yield "not-allOf", _x({"not": {"allOf": [s]}}), "v"
    yield "contains-maxContains", _x({"contains": s, "maxContains": 0}), "list"
    yield "contains-minContains0", _x({"contains": s, "minContains": 0, "maxContains": 0}), "list"
    yield (
        "contains-maxContains-ref",
        _x({"contains": {"$ref": "#/$defs/s"}, "maxContains": 0}, **{"$defs": {"s": s}}),
        "list",
    )
    yield "maxContains-2019", _x({"contains": s, "maxContains": 0}, D2019), "list"
    yield "not-propertyNames", _x({"not": {"propertyNames": s}}), "key"
    yield (
        "not-dependentSchemas",
        _x({"not": {"dependentSchemas": {"a": {"properties": {"a": s}}}}}),
        "obj",
    )
    yield (
        "not-dependencies-d4",
        _x({"not": {"dependencies": {"a": {"properties": {"a": s}}}}}, D4),
        "obj",
    )
    yield "not-unevaluatedProperties", _x({"not": {"unevaluatedProperties": s}}), "obj"
    yield "not-unevaluatedItems", _x({"not": {"unevaluatedItems": s}}), "list"
    yield (
        "not-additionalItems-2019",
        _x({"not": {"items": [True], "additionalItems": s}}, D2019),
        "pair",
    )
    yield "not-ref-sibling", _x({"not": {"$ref": "#/$defs/t", **s}}, **{"$defs": {"t": True}}), "v"
    yield "no-schema", {"type": "object", "properties": {"x": {"not": s}}}, "v"


def _shape(value: Any, how: str) -> Any:
    return {
        "v": value,
        "list": [value],
        "key": {str(value): 1},
        "obj": {"a": value},
        "pair": [0, value],
    }[how]


POLARITY = [
    pytest.param(engine, s, value, formats, schema, how, id=f"{sid}-{rid}-{engine}")
    for sid, s, value, formats in STRICTER
    for rid, schema, how in _negated_routes(s)
    for engine in ENGINES
    if not (sid == "float-multipleOf" and rid == "not-propertyNames")
]


@pytest.mark.parametrize(("engine", "s", "value", "formats", "schema", "how"), POLARITY)
def test_a_stricter_check_reached_negated_is_refused(
    engine: EngineName, s: Any, value: Any, formats: bool, schema: dict[str, Any], how: str
) -> None:
    shaped = _shape(value, how)
    instance = {"x": shaped, "y": shaped}
    assert verdict(engine, schema, instance, formats=formats) == "refused"
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
    result = JsonSchemaArgumentValidator(options=options).validate(schema, instance)
    assert "unsafe under not, if, oneOf" in result.errors[0].message


def test_the_stricter_pairs_really_split_prism_and_the_reference() -> None:
    """Control: each S rejects its value on Prism and passes it on the reference."""
    for _, s, value, formats in STRICTER:
        schema = _x(s)
        assert reference_valid(schema, {"x": value}, formats=formats)
        for engine in ENGINES:
            assert verdict(engine, schema, {"x": value}, formats=formats) == "invalid"


# --- 2. Numbers: equality, uniqueness and bounds agree with the reference in both polarities ---
B = 2**53
NUMBERS: list[Any] = [1, 1.0, True, False, 0, -0.0, B + 1, float(B), 2**64 + 1, float(2**64)]
NUMBERS += [
    2**1000 + 1,
    float(2**1000),
    2**1100,
    1e308,
    [1, True],
    [1, 1.0],
    [{"a": 1}, {"a": True}],
]
NUMBERS += [[B + 1, float(B)], [[1], [1.0]], {"a": True}, [True]]
NUMBER_KEYWORDS: list[dict[str, Any]] = [
    {"const": 1},
    {"const": {"a": 1}},
    {"enum": [[1]]},
    {"const": B + 1},
    {"const": float(2**1000)},
    {"uniqueItems": True},
    {"minimum": B + 1},
    {"maximum": float(B)},
    {"exclusiveMaximum": 2**64 + 1},
    {"maximum": 1e308},
    {"multipleOf": 7},
    {"multipleOf": 2**64},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("negate", [False, True], ids=["positive", "not"])
def test_numbers_never_pass_what_the_reference_rejects(engine: EngineName, negate: bool) -> None:
    for keyword in NUMBER_KEYWORDS:
        schema = _x({"not": keyword} if negate else keyword)
        for value in NUMBERS:
            if not reference_valid(schema, {"x": value}):
                assert verdict(engine, schema, {"x": value}) != "valid", (keyword, value)


# --- 3. $schema: exactly the ten published spellings are read ---
PUBLISHED = [
    f"{base}{suffix}" for base in (D4[:-1], D6[:-1], D7[:-1], D2019, D2020) for suffix in ("", "#")
]
LOOKALIKES = [
    f"{base}{suffix}"
    for base in (D7[:-1], D2019)
    for suffix in ("##", "#/", " ", "/", "?", "#%20", "%23", "?#")
] + [
    D7.upper(),
    D7.replace("http", "HTTP", 1),
    D7.replace("json-schema.org", "json-schema.org:80"),
    D7.replace("json-schema.org", "json-schema.org."),
    D7.replace("http:", "https:"),
    D2019.replace("https:", "http:"),
    " " + D2020,
    "http://json-schema.org/draft-03/schema#",
    "",
    "#",
    None,
    7,
]


@pytest.mark.parametrize("engine", ENGINES)
def test_only_published_schema_uris_are_read(engine: EngineName) -> None:
    for uri in PUBLISHED:
        assert verdict(engine, {"$schema": uri, "type": "object"}, {}) == "valid", uri
    for bad in LOOKALIKES:
        assert verdict(engine, {"$schema": bad, "type": "object"}, {}) == "refused", bad
    nested = _x({"$ref": "#/$defs/s"}, D7, **{"$defs": {"s": {"$schema": D7, "const": 1}}})
    assert verdict(engine, nested, {"x": 2}) == "refused"


# --- 4. Undecidable values fail the whole value, so no `not` turns them into acceptance ---
UNDECIDABLE: list[tuple[str, dict[str, Any], Any, tuple[EngineName, ...]]] = [
    ("long-string-not-pattern", {"not": {"pattern": ""}}, "a" * 65_537, ENGINES),
    (
        "long-key-not-patternProperties",
        {"not": {"patternProperties": {"": True}}},
        {"a" * 65_537: 1},
        ENGINES,
    ),
    ("unassigned-not-p", {"not": {"pattern": "\\p{L}"}}, "\u1c89", ENGINES),
    ("unicode17-not-p", {"not": {"pattern": "\\p{L}"}}, "\U00010940", ENGINES),
    (
        "unicode17-key-patternProperties",
        {"patternProperties": {"\\p{L}": False}},
        {"\U00010940": 1},
        ENGINES,
    ),
    (
        "unicode17-key-not-P",
        {"not": {"patternProperties": {"\\P{L}": False}}},
        {"\U000323b0": 1},
        ENGINES,
    ),
    ("surrogate-not-minLength", {"not": {"minLength": 0}}, "\ud800", ("jsonschema-rs",)),
    (
        "surrogate-key-not-propertyNames",
        {"not": {"propertyNames": {"minLength": 0}}},
        {"\ud800": 1},
        ("jsonschema-rs",),
    ),
]


@pytest.mark.parametrize(
    ("engine", "sub", "value"),
    [
        pytest.param(engine, sub, value, id=f"{name}-{engine}")
        for name, sub, value, engines in UNDECIDABLE
        for engine in engines
    ],
)
def test_an_undecidable_value_is_not_accepted_under_not(
    engine: EngineName, sub: Any, value: Any
) -> None:
    assert verdict(engine, _x(sub), {"x": value}) != "valid"


# Every route by which a ``\\p{..}`` pattern can meet a string (or a key) reaches the check.
NEW_LETTER = "\U00010940"  # a Sidetic letter, Unicode 17.0: unassigned in every table Prism reads
NOT_P: dict[str, Any] = {"not": {"pattern": "\\p{L}"}}
REACH: list[tuple[str, dict[str, Any], Any]] = [
    (
        "dependentSchemas",
        {"dependentSchemas": {"a": {"properties": {"b": NOT_P}}}},
        {"a": 1, "b": NEW_LETTER},
    ),
    (
        "recursion",
        {"properties": {"a": NOT_P, "c": {"$ref": "#"}}},
        {"c": {"c": {"a": NEW_LETTER}}},
    ),
    (
        "prefixItems",
        {"properties": {"x": {"prefixItems": [True, NOT_P]}}},
        {"x": ["a", NEW_LETTER]},
    ),
    (
        "items-after-prefix",
        {"properties": {"x": {"prefixItems": [True], "items": NOT_P}}},
        {"x": ["a", NEW_LETTER]},
    ),
    ("contains", {"properties": {"x": {"contains": NOT_P}}}, {"x": [NEW_LETTER]}),
    ("slash-key", {"properties": {"a/b": NOT_P}}, {"a/b": NEW_LETTER}),
    ("tilde-key", {"properties": {"a~1b": NOT_P}}, {"a~1b": NEW_LETTER}),
    ("empty-key", {"properties": {"": NOT_P}}, {"": NEW_LETTER}),
    ("else", {"properties": {"x": {"if": False, "else": NOT_P}}}, {"x": NEW_LETTER}),
    (
        "additionalProperties",
        {"properties": {"a": True}, "additionalProperties": NOT_P},
        {"b": NEW_LETTER},
    ),
    ("unevaluatedProperties", {"unevaluatedProperties": NOT_P}, {"b": NEW_LETTER}),
    ("unevaluatedItems", {"properties": {"x": {"unevaluatedItems": NOT_P}}}, {"x": [NEW_LETTER]}),
    ("anyOf", {"anyOf": [{"properties": {"b": NOT_P}}]}, {"b": NEW_LETTER}),
    (
        "ref-escaped",
        {"$defs": {"a/b": NOT_P}, "properties": {"b": {"$ref": "#/$defs/a~1b"}}},
        {"b": NEW_LETTER},
    ),
    (
        "propertyNames-ref",
        {"$defs": {"p": NOT_P}, "propertyNames": {"$ref": "#/$defs/p"}},
        {NEW_LETTER: 1},
    ),
    (
        "if-oneOf",
        {"properties": {"x": {"oneOf": [{"pattern": "\\p{L}"}, {"pattern": "\\p{Lo}"}]}}},
        {"x": NEW_LETTER},
    ),
    ("astral-key", {"properties": {NEW_LETTER: NOT_P}}, {NEW_LETTER: NEW_LETTER}),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("schema", "value"), [pytest.param(s, v, id=n) for n, s, v in REACH])
def test_every_route_to_a_property_pattern_checks_the_tables(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert verdict(engine, {"type": "object", **schema}, value) == "refused"


# A $ref into a position fastjsonschema's lowering rewrote still names what the reference reads.
INT: dict[str, Any] = {"type": "integer"}
LOWERED: list[tuple[str, dict[str, Any], Any]] = [
    (
        "dependentSchemas",
        {"y": {"dependentSchemas": {"a": {"properties": {"a": INT}}}}},
        {"a": "s"},
    ),
    ("ref-sibling-properties", {"y": {"$ref": "#/$defs/t", "properties": {"z": INT}}}, "s"),
    ("ref-sibling-allOf", {"y": {"$ref": "#/$defs/t", "allOf": [True, INT]}}, "s"),
    ("then", {"y": {"if": True, "then": INT}}, "s"),
    ("items", {"y": {"items": INT}}, "s"),
    ("propertyNames", {"y": {"propertyNames": {"maxLength": 1}}}, "ss"),
]
TARGETS = {
    "dependentSchemas": "#/properties/y/dependentSchemas/a",
    "ref-sibling-properties": "#/properties/y/properties/z",
    "ref-sibling-allOf": "#/properties/y/allOf/1",
    "then": "#/properties/y/then",
    "items": "#/properties/y/items",
    "propertyNames": "#/properties/y/propertyNames",
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("name", "props", "value"), [pytest.param(*case, id=case[0]) for case in LOWERED]
)
def test_a_ref_into_a_lowered_position_is_not_widened(
    engine: EngineName, name: str, props: dict[str, Any], value: Any
) -> None:
    schema = {
        "type": "object",
        "$defs": {"t": True},
        "properties": {**props, "x": {"$ref": TARGETS[name]}},
    }
    assert not reference_valid(schema, {"x": value})
    assert verdict(engine, schema, {"x": value}) != "valid"


# --- 5. Allowlisted formats never pass what the reference rejects (edge spellings) ---
U = "12345678-1234-1234-1234-123456789abc"
FORMAT_EDGES: dict[str, list[str]] = {
    "ipv4": ["01.1.1.1", "1.1.1.1\n", "\u0661.1.1.1", "1.1.1.1\x00", "1.1.1.01", "1.1.1.1\r"],
    "ipv6": ["::1\n", "fe80::1%eth0", "::\u0661", "::ffff:1.1.1.01", "[::1]", "::1.2.3.4\n"],
    "email": ["ab.c", "a@b.c\n"],
    "uuid": [U + "\n", U.replace("-", ""), "{" + U + "}", "urn:uuid:" + U, U[:-1] + "\u0661"],
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D4, D7, D2020], ids=["d4", "d7", "d2020"])
def test_format_edges_never_pass_what_the_reference_rejects(engine: EngineName, draft: str) -> None:
    for name, values in FORMAT_EDGES.items():
        schema = _x({"format": name}, draft)
        for value in values:
            if not reference_valid(schema, {"x": value}, formats=True):
                assert verdict(engine, schema, {"x": value}, formats=True) != "valid", (name, value)


# --- 6. unevaluated* annotations agree with the reference wherever a schema is compiled ---
UNEVALUATED: list[dict[str, Any]] = [
    {
        "anyOf": [{"properties": {"a": True}, "required": ["b"]}, True],
        "unevaluatedProperties": False,
    },
    {"if": {"properties": {"a": True}, "required": ["b"]}, "unevaluatedProperties": False},
    {"not": {"not": {"properties": {"a": True}}}, "unevaluatedProperties": False},
    {"dependentSchemas": {"b": {"properties": {"a": True}}}, "unevaluatedProperties": False},
    {"contains": {"const": 1}, "maxContains": 0, "unevaluatedItems": False},
    {"anyOf": [{"prefixItems": [True], "minItems": 5}, True], "unevaluatedItems": False},
    {"additionalProperties": {"type": "string"}, "unevaluatedProperties": False},
    {"prefixItems": [{"type": "integer"}], "items": {"type": "string"}, "unevaluatedItems": False},
]
UNEVALUATED_VALUES: list[Any] = [{"a": 1}, {"a": 1, "b": 1}, {"b": 1}, [1], [2], [1, "s"], ["s", 1]]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("negate", [False, True], ids=["positive", "not"])
def test_unevaluated_annotations_match_the_reference(engine: EngineName, negate: bool) -> None:
    for sub in UNEVALUATED:
        schema = _x({"not": sub} if negate else sub)
        for value in UNEVALUATED_VALUES:
            got = verdict(engine, schema, {"x": value})
            if got != "refused":
                assert (got == "valid") == reference_valid(schema, {"x": value}), (sub, value)


# --- 7. Where the reference departs from the specification, Prism follows the specification ---
def test_2019_additional_properties_object_counts_as_evaluated() -> None:
    """The reference's 2019-09 annotation walk reads the *schema's* keys as property names.

    The official suite (draft2019-09 unevaluatedProperties, "adjacent additionalProperties")
    calls ``{"a": "s"}`` valid here; the reference rejects it. Not a bypass.
    """
    schema = _x({"additionalProperties": {"type": "string"}, "unevaluatedProperties": False}, D2019)
    assert not reference_valid(schema, {"x": {"a": "s"}})
    for engine in ENGINES:
        assert verdict(engine, schema, {"x": {"a": "s"}}) == "valid"
        assert verdict(engine, schema, {"x": {"a": 1}}) == "invalid"


# (pattern, text, does ECMA-262 with the u flag match; checked with node's RegExp(p, "u"))
ECMA_NOT_PYTHON = [
    ("^\\d+$", "\u0661\u0662", False),
    ("^a$", "a\n", False),
    ("^.$", "\r", False),
    ("^.$", "\u2028", False),
    ("^\\w$", "\u00e9", False),
    ("^\\s$", "\x85", False),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("pattern", "text", "ecma_match"), ECMA_NOT_PYTHON)
def test_patterns_under_not_follow_ecma_where_python_re_differs(
    engine: EngineName, pattern: str, text: str, ecma_match: bool
) -> None:
    """Python's ``re`` (the reference) matches these; ECMA-262 (JSON Schema's dialect) does not."""
    schema = _x({"not": {"pattern": pattern}})
    assert not reference_valid(schema, {"x": text})
    assert verdict(engine, schema, {"x": text}) == ("invalid" if ecma_match else "valid")
