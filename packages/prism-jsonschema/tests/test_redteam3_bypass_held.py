"""Red team round 3 (bypass): attacks that held, kept as regression tests.

Each attack is a schema and a value run through the public validator (and through dispatch with
a recording handler) on both engines. "Held" means Prism never accepts a value the reference
rejects: the ``jsonschema`` package for keywords and formats, V8 (``new RegExp(p, "u")``,
verdicts recorded below) for patterns, which Prism reads as ECMA-262 with the ``u`` flag.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping
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
    dispatch_tool_calls_in_order,
    parse_tool_call,
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
DRAFTS = {"4": D4, "6": D6, "7": D7, "2019": D2019, "2020": D2020}
EngineName = Literal["fastjsonschema", "jsonschema-rs"]
ENGINES: tuple[EngineName, ...] = ("fastjsonschema", "jsonschema-rs")


@functools.cache
def _validator(engine: EngineName, formats: bool) -> JsonSchemaArgumentValidator:
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=formats)
    return JsonSchemaArgumentValidator(options=options)


def _reference(schema: dict[str, Any], value: Any, *, formats: bool) -> bool | None:
    """The ``jsonschema`` package's verdict; ``None`` when it cannot use the schema."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = cls.FORMAT_CHECKER if formats else None
    try:
        return bool(cls(schema, format_checker=checker).is_valid(value))
    except Exception:  # the reference cannot resolve or use the schema
        return None


def assert_never_wider(
    engine: EngineName, schema: dict[str, Any], value: Any, *, formats: bool = False
) -> None:
    """Prism accepts the value only if the reference does (a broken schema must not pass)."""
    if _validator(engine, formats).validate(schema, value).ok:
        assert _reference(schema, value, formats=formats) is True


def _x(sub: Any, draft: str = D2020, **root: Any) -> dict[str, Any]:
    return {"$schema": draft, "type": "object", "properties": {"x": sub}, **root}


def _defs(draft: str) -> str:
    return "definitions" if draft in (D4, D6, D7) else "$defs"


# --- references: pointer escapes, anchors, ids, siblings, definitions vs $defs -----------------
def _reference_cases() -> Iterator[Any]:
    for tag, d in DRAFTS.items():
        k = _defs(d)
        idk = "id" if d == D4 else "$id"

        def ref_to(
            target: str, defs: dict[str, Any], *, d: str = d, k: str = k, **root: Any
        ) -> tuple[dict[str, Any], Any]:
            return _x({"$ref": target}, d, **{k: defs}, **root), {"x": 1}

        sibling = _x({"$ref": f"#/{k}/s", "maxLength": 2}, d, **{k: {"s": {"type": "string"}}})
        yield f"sibling-{tag}", sibling, {"x": "abcdef"}
        yield (
            f"tilde1-{tag}",
            *ref_to(f"#/{k}/a~1b", {"a/b": {"type": "string"}, "a~1b": {"type": "integer"}}),
        )
        yield (
            f"tilde0-{tag}",
            *ref_to(f"#/{k}/a~0b", {"a~b": {"type": "string"}, "a~0b": {"type": "integer"}}),
        )
        yield (
            f"tilde01-{tag}",
            *ref_to(f"#/{k}/a~01", {"a~1": {"type": "string"}, "a/": {"type": "integer"}}),
        )
        yield (
            f"pct25-{tag}",
            *ref_to(f"#/{k}/a%25b", {"a%b": {"type": "string"}, "a%25b": {"type": "integer"}}),
        )
        yield (
            f"pct20-{tag}",
            *ref_to(f"#/{k}/a%20b", {"a b": {"type": "string"}, "a%20b": {"type": "integer"}}),
        )
        yield (
            f"pct2F-{tag}",
            *ref_to(f"#/{k}/a%2Fb", {"a/b": {"type": "string"}, "a%2Fb": {"type": "integer"}}),
        )
        yield f"pct61-{tag}", *ref_to(f"#/{k}/%61", {"a": {"type": "string"}})
        yield f"empty-name-{tag}", *ref_to(f"#/{k}/", {"": {"type": "string"}})
        yield (
            f"trailing-slash-{tag}",
            *ref_to(f"#/{k}/s/", {"s": {"type": "string", "": {"type": "integer"}}}),
        )
        yield f"no-slash-{tag}", *ref_to(f"#{k}/s", {"s": {"type": "string"}})
        yield f"double-hash-{tag}", *ref_to(f"#/{k}/s#", {"s": {"type": "string"}})
        yield (
            f"query-{tag}",
            *ref_to(f"#/{k}/s?q", {"s": {"type": "string"}, "s?q": {"type": "string"}}),
        )
        yield (
            f"leading-zero-{tag}",
            _x({"$ref": "#/allOf/00"}, d, allOf=[{"type": "string"}]),
            {"x": 1},
        )
        yield (
            f"out-of-range-{tag}",
            _x({"$ref": "#/allOf/1"}, d, allOf=[{"type": "string"}]),
            {"x": 1},
        )
        yield (
            f"dash-index-{tag}",
            _x({"$ref": "#/allOf/-"}, d, allOf=[{"type": "string"}]),
            {"x": 1},
        )
        yield (
            f"root-{tag}",
            {"$schema": d, "properties": {"x": {"$ref": "#"}, "y": {"type": "string"}}},
            {"x": {"y": 1}},
        )
        yield (
            f"hash-slash-{tag}",
            {"$schema": d, "properties": {"x": {"$ref": "#/"}, "": {"type": "string"}}},
            {"x": 1},
        )
        yield (
            f"definitions-{tag}",
            _x({"$ref": "#/definitions/s"}, d, definitions={"s": {"type": "string"}}),
            {"x": 1},
        )
        yield (
            f"dollar-defs-{tag}",
            _x({"$ref": "#/$defs/s"}, d, **{"$defs": {"s": {"type": "string"}}}),
            {"x": 1},
        )
        yield f"id-hash-anchor-{tag}", *ref_to("#foo", {"a": {idk: "#foo", "type": "string"}})
        yield f"anchor-{tag}", *ref_to("#foo", {"a": {"$anchor": "foo", "type": "string"}})
        yield (
            f"anchor-in-unknown-{tag}",
            *ref_to(
                "#foo",
                {"a": {"$anchor": "foo", "type": "string"}},
                zzz={"$anchor": "foo", "type": "integer"},
            ),
        )
        yield (
            f"anchor-twice-{tag}",
            *ref_to(
                "#foo",
                {
                    "a": {"$anchor": "foo", "type": "string"},
                    "b": {"$anchor": "foo", "type": "integer"},
                },
            ),
        )
        yield (
            f"dynamic-anchor-as-anchor-{tag}",
            *ref_to("#foo", {"a": {"$dynamicAnchor": "foo", "type": "string"}}),
        )
        yield (
            f"anchor-in-const-{tag}",
            {
                "$schema": d,
                "properties": {
                    "x": {"$ref": "#foo"},
                    "y": {"const": {"$anchor": "foo", "type": "integer"}},
                },
                k: {"a": {"$anchor": "foo", "type": "string"}},
            },
            {"x": 1},
        )
        yield (
            f"abs-to-root-id-{tag}",
            *ref_to(
                f"http://x/y.json#/{k}/a", {"a": {"type": "string"}}, **{idk: "http://x/y.json"}
            ),
        )
        yield (
            f"root-id-empty-fragment-{tag}",
            *ref_to(f"#/{k}/a", {"a": {"type": "string"}}, **{idk: "http://x/y.json#"}),
        )
        yield (
            f"root-id-pointer-fragment-{tag}",
            *ref_to(
                f"#/{k}/a", {"a": {"type": "string"}, "b": {"type": "integer"}}, **{idk: f"#/{k}/b"}
            ),
        )
        yield (
            f"urn-root-{tag}",
            *ref_to(f"urn:x#/{k}/a", {"a": {"type": "string"}}, **{idk: "urn:x"}),
        )


REFERENCE_CASES = list(_reference_cases())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in REFERENCE_CASES]
)
def test_references_resolve_as_the_reference_does(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert_never_wider(engine, schema, value)


# --- keyword semantics: numbers, equality, unique items, lengths, applicators per draft --------
def _keyword_cases() -> Iterator[Any]:
    def each(
        name: str, sub: Any, values: list[Any], drafts: str = "4 6 7 2019 2020"
    ) -> Iterator[Any]:
        for tag in drafts.split():
            for n, value in enumerate(values):
                yield f"{name}-{tag}-{n}", _x(sub, DRAFTS[tag]), {"x": value}

    def root(name: str, schema: dict[str, Any], values: list[Any], drafts: str) -> Iterator[Any]:
        for tag in drafts.split():
            for n, value in enumerate(values):
                yield f"{name}-{tag}-{n}", {"$schema": DRAFTS[tag], **schema}, value

    obj_a = {"a": 1, "b": 2}
    obj_b = {"b": 2, "a": 1}
    uniq = [[1, True], [1, 1.0], [0, False], [obj_a, obj_b], [[1], [True]], [{"a": 1}, {"a": True}]]
    uniq += [[{"a": [1.0]}, {"a": [1]}], [0.0, -0.0], [None, False], [[], {}]]
    yield from each("unique-items", {"uniqueItems": True}, uniq)
    yield from each("enum-true", {"enum": [True]}, [1, 1.0])
    yield from each("enum-1", {"enum": [1]}, [True, 1.0])
    yield from each("enum-0", {"enum": [0]}, [False, -0.0])
    yield from each(
        "enum-nested", {"enum": [[False, {"a": [0]}]]}, [[0, {"a": [False]}], [False, {"a": [0.0]}]]
    )
    yield from each("const-false", {"const": False}, [0, 0.0], "6 7 2019 2020")
    yield from each("const-list", {"const": [1]}, [[True], [1.0]], "6 7 2019 2020")
    yield from each(
        "const-obj", {"const": {"a": 1}}, [{"a": True}, {"a": 1, "b": None}], "6 7 2019 2020"
    )
    yield from each("const-null", {"const": None}, [0, False, "", []], "6 7 2019 2020")
    yield from each("const-2**64", {"const": 2**64}, [2**64 + 1, float(2**64)], "6 7 2019 2020")
    yield from each("const-2**53+1", {"const": 2**53 + 1}, [2**53, float(2**53)], "6 7 2019 2020")
    yield from each("integer", {"type": "integer"}, [1.0, 1e300, 1.5, True], "4 6 2020")
    yield from each("number-bool", {"type": "number"}, [True, "1"], "4 2020")
    yield from each("type-list", {"type": ["integer", "null"]}, [True, 1.5, "1"], "4 2020")
    yield from each("maximum-2**53", {"maximum": 2**53}, [2**53 + 1], "4 2020")
    yield from each("minimum-2**70+1", {"minimum": 2**70 + 1}, [2**70, float(2**70)], "4 2020")
    yield from each("minimum-2**63", {"minimum": 2**63}, [2**63 - 1, 9.223372036854775e18], "2020")
    yield from each(
        "maximum--2**63-1", {"maximum": -(2**63) - 1}, [-(2**63), -9.223372036854775e18], "2020"
    )
    yield from each(
        "excl-max-float", {"exclusiveMaximum": 9007199254740992.0}, [2**53, 2**53 + 1], "7 2020"
    )
    d4_excl = {"maximum": 2**53, "exclusiveMaximum": True}
    yield from each("excl-max-d4", d4_excl, [2**53 + 1, 9007199254740992.0], "4")
    yield from each("excl-min-zero", {"exclusiveMinimum": 0}, [-0.0, 0], "7 2020")
    yield from each("integer-max", {"type": "integer", "maximum": 10}, [1e20], "2020")
    yield from each(
        "max-length-astral", {"maxLength": 1}, ["\U0001f600\U0001f600", "e\u0301"], "4 2020"
    )
    yield from each("min-length-astral", {"minLength": 2}, ["\U0001f600"], "4 2020")
    yield from each("multiple-of-0.01", {"multipleOf": 0.01}, [0.07, 1.13], "2020")
    yield from each("multiple-of-3", {"multipleOf": 3}, [1e300, 2**1000], "2020")
    yield from each("not-multiple-of-0.1", {"not": {"multipleOf": 0.1}}, [0.3, 1e20], "2020")
    yield from each(
        "not-multiple-of-1.1", {"not": {"multipleOf": 1.1}}, [3.3, 4.4, 5.5, 6.6, 7.7], "2020"
    )
    yield from each("not-unique", {"not": {"uniqueItems": True}}, [[1, True], [1, 1.0]], "2020")
    yield from each("not-const", {"not": {"const": 1}}, [1.0, True], "2020")
    yield from each("not-integer", {"not": {"type": "integer"}}, [1.0, 1e308], "4 2020")
    yield from each("not-maximum", {"not": {"maximum": 2**53}}, [2**53 + 1], "2020")
    contains = {"contains": {"type": "string"}}
    yield from each("contains", contains, [[], [1]], "6 7 2019 2020")
    yield from each("contains-false", {"contains": False}, [[], [1]], "6 7 2019 2020")
    yield from each(
        "min-contains-0",
        {**contains, "minContains": 0, "maxContains": 1},
        [[], ["a", "b"], [1]],
        "2019 2020",
    )
    yield from each("max-contains", {**contains, "maxContains": 1}, [["a", "b"]], "2019 2020")
    yield from each("items-false", {"items": False}, [[1]], "6 7 2019 2020")
    yield from each("prefix-items-false", {"prefixItems": [{}], "items": False}, [[1, 2]], "2020")
    yield from each(
        "additional-items", {"items": [{}], "additionalItems": False}, [[1, 2]], "4 6 7 2019"
    )
    yield from each("additional-items-alone", {"additionalItems": False}, [[1, 2]], "4 6 7 2019")
    yield from each("prefix-items-in-2019", {"prefixItems": [{"type": "string"}]}, [[1]], "2019")
    yield from each(
        "not-additional-items-2020", {"not": {"additionalItems": False}}, [[1, 2]], "2020"
    )
    yield from each("bool-not-true", {"not": True}, [1], "6 7 2019 2020")
    yield from root(
        "dependent-required", {"dependentRequired": {"a": ["b"]}}, [{"a": 1}], "2019 2020"
    )
    yield from root(
        "dependencies-array", {"dependencies": {"a": ["b"]}}, [{"a": 1}], "4 6 7 2019 2020"
    )
    dep_schema = {"dependencies": {"a": {"required": ["b"]}}}
    yield from root("dependencies-schema", dep_schema, [{"a": 1}], "4 6 7 2019 2020")
    yield from root(
        "dependent-schemas",
        {"dependentSchemas": {"a": {"required": ["b"]}}},
        [{"a": 1}],
        "7 2019 2020",
    )
    yield from root(
        "dependent-schemas-false", {"dependentSchemas": {"a": False}}, [{"a": 1}], "2019 2020"
    )
    yield from root("dependencies-false", {"dependencies": {"a": False}}, [{"a": 1}], "6 7")
    for name, names in (("max-length", {"maxLength": 2}), ("pattern", {"pattern": "^a"})):
        yield from root(
            f"property-names-{name}",
            {"propertyNames": names},
            [{"abc": 1}, {"b": 1}],
            "6 7 2019 2020",
        )
    others: tuple[tuple[str, Any], ...] = (
        ("false", False),
        ("const", {"const": "a"}),
        ("enum", {"enum": ["a"]}),
    )
    for name, other in others:
        yield from root(
            f"property-names-{name}", {"propertyNames": other}, [{"b": 1}], "6 7 2019 2020"
        )
    yield from root(
        "property-names-int", {"propertyNames": {"type": "integer"}}, [{"1": 1}], "6 7 2019 2020"
    )
    pn_ref = {"propertyNames": {"$ref": "#/$defs/n"}, "$defs": {"n": {"maxLength": 1}}}
    yield from root("property-names-ref", pn_ref, [{"ab": 1}], "2019 2020")
    yield from root("false-property", {"properties": {"x": False}}, [{"x": None}], "6 7 2019 2020")
    closed = {"additionalProperties": False, "properties": {"a": True}}
    yield from root("additional-false", closed, [{"b": 1}], "6 7 2019 2020")
    if_then = {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}
    yield from root("if-then-else", if_then, [{"a": 1}, {}], "7 2019 2020")
    yield from root("then-without-if", {"then": False}, [{"a": 1}], "7 2019 2020")
    yield from root("if-false", {"if": False, "else": False}, [{"a": 1}], "7 2019 2020")
    yield from root("if-in-draft6", {"if": True, "then": False}, [{"a": 1}], "6")


KEYWORD_CASES = list(_keyword_cases())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in KEYWORD_CASES]
)
def test_keywords_are_never_wider_than_the_reference(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert_never_wider(engine, schema, value)


# --- 2019-09/2020-12 applicators, plain and under `not`, against a grid of values -----------------
APPLICATORS: list[dict[str, Any]] = [
    {"properties": {"a": True}, "unevaluatedProperties": False},
    {
        "dependentSchemas": {"a": {"properties": {"b": True}}},
        "properties": {"a": True},
        "unevaluatedProperties": False,
    },
    {"$ref": "#/$defs/p", "unevaluatedProperties": False},
    {
        "allOf": [{"properties": {"b": True}}],
        "properties": {"a": True},
        "unevaluatedProperties": False,
    },
    {"if": {"properties": {"b": True}}, "properties": {"a": True}, "unevaluatedProperties": False},
    {"patternProperties": {"^b": True}, "unevaluatedProperties": False},
    {"additionalProperties": True, "unevaluatedProperties": False},
    {"unevaluatedProperties": {"type": "integer"}},
    {"properties": {"a": False}, "unevaluatedProperties": True},
    {"prefixItems": [True], "unevaluatedItems": False},
    {"items": {}, "unevaluatedItems": False},
    {"contains": {"type": "integer"}, "unevaluatedItems": False},
    {"prefixItems": [True], "items": {"type": "integer"}, "unevaluatedItems": False},
    {"unevaluatedItems": {"type": "integer"}},
    {"allOf": [{"prefixItems": [True]}], "unevaluatedItems": False},
    {"$ref": "#/$defs/i", "unevaluatedItems": False},
    {"contains": {"type": "string"}, "minContains": 0},
    {"contains": {"type": "string"}, "minContains": 0, "maxContains": 0},
    {"contains": {"type": "string"}, "maxContains": 1},
    {"contains": {"type": "string"}, "minContains": 2},
    {"minContains": 2},
    {"maxContains": 0},
    {"prefixItems": [{"type": "string"}], "items": False},
    {"prefixItems": [{"type": "string"}]},
    {"prefixItems": [{"$ref": "#/$defs/s"}], "items": {"$ref": "#/$defs/s"}},
    {"dependentRequired": {"a": ["b"]}},
    {"dependentSchemas": {"a": {"required": ["b"]}}},
    {"dependencies": {"a": ["b"]}},
    {"propertyNames": {"maxLength": 1}},
    {"$dynamicRef": "#/$defs/s"},
    {"$recursiveRef": "#"},
    {"$ref": "#/$defs/s", "type": "integer"},
    {"$ref": "#/$defs/s", "not": {"type": "string"}},
    {"enum": [1, "a", [1], {"a": 1}]},
    {"const": {"a": [1, {"b": None}]}},
    {"uniqueItems": True},
    {"maxProperties": 0},
    {"exclusiveMinimum": 0},
    {"multipleOf": 2},
]
GRID: list[Any] = [{"a": 1}, {"a": 1, "b": 2}, {"b": "x"}, {"": 1}, {"ab": 1}, [], [1], ["a"]]
GRID += [
    ["a", 1],
    [1, "a"],
    ["a", "b"],
    [1, 1],
    [[1], [1.0]],
    1,
    1.0,
    -0.0,
    "a",
    None,
    True,
    2**64,
    1e308,
]
APPLICATOR_DEFS = {
    "p": {"properties": {"b": True}},
    "i": {"prefixItems": [True]},
    "s": {"type": "string"},
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("negate", [False, True], ids=["plain", "not"])
@pytest.mark.parametrize("draft", [D2019, D2020], ids=["2019", "2020"])
@pytest.mark.parametrize("sub", APPLICATORS, ids=[str(n) for n in range(len(APPLICATORS))])
def test_applicators_plain_and_negated_never_widen(
    engine: EngineName, negate: bool, draft: str, sub: Any
) -> None:
    inner = {"not": sub} if negate else sub
    schema = _x(inner, draft, **{"$defs": APPLICATOR_DEFS})
    for value in GRID:
        assert_never_wider(engine, schema, {"x": value})


# --- patterns: V8 verdicts (new RegExp(p, "u").test(s)): 1 match, 0 no match, -1 syntax error
V8_PATTERN_VERDICTS = [
    ("^\\d+$", "١٢", 0),
    ("^\\d+$", "12", 1),
    ("^\\d+$", "１", 0),
    ("^\\w+$", "é", 0),
    ("^\\w+$", "ſ", 0),
    ("^\\w+$", "K", 1),
    ("^\\w+$", "a_1", 1),
    ("^[^\\d]+$", "1", 0),
    ("^[^\\d]+$", "١", 1),
    ("^\\D+$", "١", 1),
    ("^\\D+$", "1", 0),
    ("^\\W+$", "é", 1),
    ("^\\W+$", "a", 0),
    ("^abc$", "abc\n", 0),
    ("^abc$", "abc\r", 0),
    ("abc$", "abc\n", 0),
    ("^a.c$", "a\nc", 0),
    ("^a.c$", "a\u2028c", 0),
    ("^a.c$", "a😀c", 1),
    ("^a.c$", "a\ud83dc", 1),
    ("^.$", "😀", 1),
    ("^\\s$", "\x85", 0),
    ("^\\s$", "\u180e", 0),
    ("^\\s$", "\u200b", 0),
    ("^\\s$", "\ufeff", 1),
    ("^\\s$", "\x1c", 0),
    ("^\\S$", "\x85", 1),
    ("^\\S$", "\x1c", 1),
    ("^\\S$", "\ufeff", 0),
    ("^[\\s]$", "\x85", 0),
    ("^[\\s]$", "\ufeff", 1),
    ("^[^\\s]$", "\ufeff", 0),
    ("^[^\\s]$", "\xa0", 0),
    ("^\\p{L}$", "1", 0),
    ("^\\p{L}$", "é", 1),
    ("^\\p{Lu}$", "a", 0),
    ("^\\P{L}$", "a", 0),
    ("^\\p{Script=Greek}$", "a", 0),
    ("^\\p{Script=Greek}$", "α", 1),
    ("^\\p{sc=Grek}$", "a", 0),
    ("^\\p{N}$", "a", 0),
    ("^\\p{N}$", "½", 1),
    ("^\\p{Any}$", "a", 1),
    ("^\\p{ASCII}$", "é", 0),
    ("^\\p{Letter}$", "1", 0),
    ("^\\p{General_Category=L}$", "1", 0),
    ("^\\p{gc=L}$", "1", 0),
    ("^\\p{Script_Extensions=Greek}$", "a", 0),
    ("^\\p{scx=Grek}$", "a", 0),
    ("^\\p{L&}$", "1", -1),
    ("^\\p{LC}$", "1", 0),
    ("^\\p{LC}$", "a", 1),
    ("^\\p{Cn}$", "a", 0),
    ("^\\p{Co}$", "a", 0),
    ("^\\p{Cs}$", "a", 0),
    ("^\\p{Cs}$", "\ud800", 1),
    ("^[\\p{L}--[a-z]]$", "a", -1),
    ("^\\u{1F600}$", "😀", 1),
    ("^\\u{1F600}$", "a", 0),
    ("^\\u{00000041}$", "A", 1),
    ("^\\u{00000041}$", "B", 0),
    ("^[\\u{1F600}-\\u{1F64F}]$", "😀", 1),
    ("^[\\u{1F600}-\\u{1F64F}]$", "a", 0),
    ("^\\x41$", "A", 1),
    ("^\\x41$", "B", 0),
    ("^\\0$", "\x00", 1),
    ("^\\0$", "0", 0),
    ("^\\cJ$", "\n", 1),
    ("^\\101$", "A", -1),
    ("^(?<n>a)\\k<n>$", "aa", 1),
    ("^(?<n>a)b$", "ab", 1),
    ("^(?<n>a)b$", "b", 0),
    ("^a{2}$", "aa", 1),
    ("^a{2}$", "aaa", 0),
    ("^a{,2}$", "a{,2}", -1),
    ("^a{2,1}$", "aa", -1),
    ("^\\/$", "/", 1),
    ("^\\-$", "-", -1),
    ("^[\\-]$", "-", 1),
    ("^[\\-]$", "\\", 0),
    ("^[a\\-z]$", "b", 0),
    ("^[\\b]$", "\x08", 1),
    ("^[\\b]$", "b", 0),
    ("^\\B$", "", 1),
    ("^(?:a|b)$", "c", 0),
    ("^(?=a)a$", "a", 1),
    ("^(?<=a)$", "", 0),
    ("^(?i:a)$", "A", -1),
    ("^(?i)a$", "A", -1),
    ("^a++$", "aa", -1),
    ("^a*?$", "b", 0),
    ("^a{1}?$", "b", 0),
    ("^[a-]$", "b", 0),
    ("^[a-]$", "-", 1),
    ("^[-a]$", "b", 0),
    ("^[\\w-.]$", "!", -1),
    ("^[.-\\w]$", "!", -1),
    ("^[a-\\s]$", "!", -1),
    ("^[\\d-z]$", "!", -1),
    ("^[\\d-z]$", "-", -1),
    ("^[\\d-z]$", "5", -1),
    ("^[\\S]$", " ", 0),
    ("^[^\\S]$", "a", 0),
    ("^[^\\W]$", "!", 0),
    ("^[\\W\\d]$", "a", 0),
    ("^[\\p{L}\\d]$", "!", 0),
    ("^[^\\p{L}]$", "a", 0),
    ("^[\\P{L}]$", "a", 0),
    ("^[^\\P{L}]$", "1", 0),
    ("^[[:alpha:]]$", "a", -1),
    ("^[[:alpha:]]$", ":", -1),
    ("^[[]$", "[", 1),
    ("^[a&&b]$", "&", 1),
    ("^[a~~b]$", "~", 1),
    ("^\\Qa.b\\E$", "axb", -1),
    ("^\\x{41}$", "A", -1),
    ("^\\u0041$", "A", 1),
    ("^\\u0041$", "B", 0),
    ("^\\uD83D\\uDE00$", "😀", 1),
    ("^[\\uD83D\\uDE00]$", "\ud83d", 0),
    ("^\\uD83D$", "\ud83d", 1),
    ("^[\\uD800-\\uDFFF]$", "\ud800", 1),
    ("^[\\uD800-\\uDFFF]$", "a", 0),
    ("^\\u{D800}$", "\ud800", 1),
    ("^[^a]$", "\ud800", 1),
    ("^[^a]$", "😀", 1),
    ("^[^a]{2}$", "😀", 0),
    ("\\Z", "a", -1),
    ("^a\\z", "a", -1),
    ("^\\ca$", "\x01", 1),
    ("^\\c1$", "\\c1", -1),
    ("^\\e$", "\x1b", -1),
    ("^\\a$", "\x07", -1),
    ("^\\h$", " ", -1),
    ("^\\R$", "\n", -1),
    ("^\\X$", "a", -1),
    ("^\\N$", "a", -1),
    ("^\\o{101}$", "A", -1),
    ("^a{1,2}{3}$", "aaa", -1),
    ("^(a)(?#c)$", "a", -1),
    ("^(?P<n>a)$", "a", -1),
    ("^(?P=n)$", "a", -1),
    ("^[\\x{41}]$", "A", -1),
    ("^[\\01]$", "\x01", -1),
    ("^\\08$", "\x008", -1),
    ("^[\\0]$", "\x00", 1),
    ("^$", "\n", 0),
    ("^\\n$", "\n", 1),
    ("^a|b$", "ax", 1),
    ("^a|b$", "xb", 1),
    ("^a|b$", "xa", 0),
    ("^(a|)$", "", 1),
    ("^\\{$", "{", 1),
    ("^}$", "}", -1),
    ("^]$", "]", -1),
    ("^{$", "{", -1),
    ("^x{1$", "x{1", -1),
    ("^[\\u{10FFFF}]$", "\U0010ffff", 1),
    ("^\\u{110000}$", "a", -1),
    ("^[^\\u{0}-\\u{10FFFF}]$", "\ud800", 0),
    ("^[\\d\\D]$", "\ud800", 1),
    ("^[^]$", "a", 1),
    ("^[]$", "a", 0),
    ("^\\k$", "k", -1),
    ("^\\p$", "p", -1),
    ("(?s).", "\n", -1),
    ("(?m)^a$", "b\na", -1),
    ("^[a-z]$", "K", 0),
    ("^[a-z]$", "K", 0),
    ("^\\$$", "$", 1),
    ("^\\d{2}$", "12", 1),
    ("^[\\d]$", "١", 0),
    ("^[^\\d\\s]$", "١", 1),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("pattern", "text", "v8"),
    [pytest.param(p, s, m, id=f"{n}") for n, (p, s, m) in enumerate(V8_PATTERN_VERDICTS)],
)
def test_patterns_never_wider_than_ecma(
    engine: EngineName, pattern: str, text: str, v8: int
) -> None:
    validator = _validator(engine, False)
    positions = {
        "pattern": (_x({"pattern": pattern}), {"x": text}, v8 == 1),
        "not-pattern": (_x({"not": {"pattern": pattern}}), {"x": text}, v8 == 0),
        "pattern-properties": (
            {"patternProperties": {pattern: {"type": "integer"}}},
            {text: "s"},
            v8 == 0,
        ),
        "closed-pattern-properties": (
            {"patternProperties": {pattern: True}, "additionalProperties": False},
            {text: "s"},
            v8 == 1,
        ),
        "property-names": ({"propertyNames": {"pattern": pattern}}, {text: 1}, v8 == 1),
    }
    for where, (schema, value, allowed) in positions.items():
        result = validator.validate(schema, value)
        if v8 == -1:
            assert not result.ok and result.errors[0].path is None, where
        elif result.ok:
            assert allowed, where


# --- formats (validate_formats=True): never passing what the reference refuses ---
EMAIL_VALUES = [
    '"a b"@c.com',
    '"a@b"@c.com',
    "a@[127.0.0.1]",
    "a@[IPv6:::1]",
    "a@b",
    "a@b.c",
    ".a@b.c",
    "a.@b.c",
    "a..b@c.d",
    "a@b..c",
    "a@-b.c",
    "a@b-.c",
    "a@b.c\n",
    "\na@b.c",
    "a@b.c ",
    " a@b.c",
    "aé@b.c",
    "a@bé.c",
    "a@@b.c",
    "@b.c",
    "a@",
    "a@b.c.",
    "a(comment)@b.c",
    "a\\@b@c.d",
    '"a\\"b"@c.d',
    "a@b.c\u2028",
    "a@١.c",
    "a@b.1",
    "a@1.2.3.4",
    "a b@c.d",
    "a\t@b.c",
    "a@b_c.d",
    "a@b.c\x00",
    "a\x00@b.c",
    "ａ@b.c",
    "a@ｂ.c",
]
"""Both email formats meet the same odd addresses (quoted, IP literals, dots, non-ASCII)."""

FORMAT_VALUES: dict[str, list[str]] = {
    "email": EMAIL_VALUES,
    "idn-email": EMAIL_VALUES,
    "ipv4": [
        "127.0.0.1",
        "01.2.3.4",
        "1.2.3.04",
        "256.1.1.1",
        "1.2.3",
        "1.2.3.4.5",
        "1.2.3.4\n",
        " 1.2.3.4",
        "١.2.3.4",
        "1.2.3.٤",
        "0x7f.0.0.1",
        "1.2.3.-1",
        "+1.2.3.4",
        "1.2.3.4/24",
        "0.0.0.0",
        "00.0.0.0",
        "1.2.3.4 ",
        "1..3.4",
        "127.1",
        "۱.2.3.4",
        "１.2.3.4",
    ],
    "ipv6": [
        "::1",
        "fe80::1%eth0",
        "fe80::1%1",
        "::ffff:1.2.3.4",
        "::ffff:01.2.3.4",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:9",
        ":::",
        "1::2::3",
        "::1\n",
        " ::1",
        "[::1]",
        "::1/128",
        "12345::",
        "g::",
        "::ffff:1.2.3.256",
        "::١",
        "1:2:3:4:5:6:7::",
        "::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "ＦＦ::1",
        "::ffff:١.2.3.4",
        "::0x1",
    ],
    "uuid": [
        "12345678-1234-1234-1234-123456789abc",
        "12345678-1234-1234-1234-123456789ABC",
        "12345678123412341234123456789abc",
        "{12345678-1234-1234-1234-123456789abc}",
        "urn:uuid:12345678-1234-1234-1234-123456789abc",
        "12345678-1234-1234-1234-123456789abcd",
        "12345678-1234-1234-1234-123456789ab",
        "12345678-1234-1234-1234-123456789abg",
        "12345678-1234-1234-1234-123456789abc\n",
        " 12345678-1234-1234-1234-123456789abc",
        "１2345678-1234-1234-1234-123456789abc",
        "12345678-1234-1234-1234_123456789abc",
        "12345678-1234-1234-1234-１23456789abc",
        "1234-5678-1234-1234-1234-56789abc",
        "12345678-12341234-1234-123456789abc",
        "+2345678-1234-1234-1234-123456789abc",
    ],
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", list(DRAFTS.values()), ids=list(DRAFTS))
@pytest.mark.parametrize("fmt", list(FORMAT_VALUES))
def test_asserted_formats_never_pass_what_the_reference_refuses(
    engine: EngineName, draft: str, fmt: str
) -> None:
    for text in FORMAT_VALUES[fmt]:
        assert_never_wider(engine, _x({"format": fmt}, draft), {"x": text}, formats=True)
        if draft != D4:
            names = {"$schema": draft, "propertyNames": {"format": fmt}}
            assert_never_wider(engine, names, {text: 1}, formats=True)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", list(DRAFTS.values()), ids=list(DRAFTS))
def test_negated_ipv4_never_widens(engine: EngineName, draft: str) -> None:
    """ipv4 is checked exactly on both engines, so `not` of it holds (unlike email)."""
    for text in FORMAT_VALUES["ipv4"]:
        assert_never_wider(
            engine, _x({"not": {"format": "ipv4"}}, draft), {"x": text}, formats=True
        )


# --- through dispatch: what is validated is what the handler receives ---------------------------
class _AlwaysEqualStr(str):
    """Compares equal to everything and prints as something else."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("x")

    def __str__(self) -> str:
        return "rm -rf /"


class _LyingDict(dict[str, Any]):
    """Shows one thing through ``items`` and another through indexing."""

    def __getitem__(self, key: str) -> Any:
        return "rm -rf /"

    def get(self, key: str, default: Any = None) -> Any:
        return "rm -rf /"


class _ShiftyMapping(Mapping[str, Any]):
    """Answers "safe" on the first read and something else afterwards."""

    def __init__(self) -> None:
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        self.reads += 1
        return "safe" if self.reads == 1 else "rm -rf /"

    def __iter__(self) -> Iterator[str]:
        return iter(["x"])

    def __len__(self) -> int:
        return 1


class _AlwaysEqualInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


class _LyingFloat(float):
    def __repr__(self) -> str:
        return "1.0"

    __str__ = __repr__


SAFE = {
    "type": "object",
    "properties": {"x": {"const": "safe"}},
    "required": ["x"],
    "additionalProperties": False,
}
SMALL = {"type": "object", "properties": {"x": {"type": "number", "maximum": 5}}, "required": ["x"]}
ARGUMENTS: list[Any] = [
    ("str-subclass-value", SAFE, lambda: {"x": _AlwaysEqualStr("safe")}),
    ("str-subclass-key", SAFE, lambda: {_AlwaysEqualStr("x"): "safe"}),
    ("lying-dict", SAFE, lambda: _LyingDict(x="safe")),
    (
        "lying-dict-nested",
        {"type": "object", "properties": {"y": SAFE}},
        lambda: {"y": _LyingDict(x="safe")},
    ),
    ("shifty-mapping", SAFE, _ShiftyMapping),
    ("int-subclass", SMALL, lambda: {"x": _AlwaysEqualInt(99)}),
    ("float-subclass", SMALL, lambda: {"x": _LyingFloat(99.0)}),
    ("bool-as-number", SMALL, lambda: {"x": True}),
    ("nan", SMALL, lambda: {"x": float("nan")}),
    ("infinity", SMALL, lambda: {"x": float("inf")}),
    ("bytes", {"type": "object", "properties": {"x": {"maxLength": 1}}}, lambda: {"x": b"ab"}),
    ("tuple", {"type": "object", "properties": {"x": {"maxItems": 1}}}, lambda: {"x": (1, 2)}),
    ("int-key", SAFE, lambda: {1: "safe", "x": "safe"}),
    ("proto-key", {"type": "object"}, lambda: {"__proto__": {"x": 1}}),
]
JSON_TEXTS = [
    '{"x":"rm -rf /","x":"safe"}',
    '{"x":"safe","x":"rm -rf /"}',
    '{"x":"safe","\\u0078":"rm -rf /"}',
    '{"x":"\\ud800"}',
    '{"x":1e400}',
    '{"x":"safe"} {"x":"rm -rf /"}',
    '\ufeff{"x":"safe"}',
]


def _exact(value: Any) -> bool:
    """Only exact dict/list/str/int/float/bool/None, all the way down."""
    if type(value) is dict:
        return all(type(k) is str and _exact(v) for k, v in value.items())
    if type(value) is list:
        return all(_exact(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


async def _dispatch(
    engine: EngineName, schema: dict[str, Any], call: ToolCall
) -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    async def handler(args: Any, context: ToolExecutionContext) -> str:
        seen.append(args)
        return "ran"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=schema)])
    options = JsonSchemaValidatorOptions(engine=engine)
    gates = ToolGates(validator=create_json_schema_tool_argument_validator(options=options))
    return await dispatch_tool_call(call, registry=registry, gates=gates), seen


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("schema", "make"), [pytest.param(s, m, id=i) for i, s, m in ARGUMENTS])
async def test_the_handler_receives_exactly_what_was_validated(
    engine: EngineName, schema: dict[str, Any], make: Any
) -> None:
    result, seen = await _dispatch(engine, schema, ToolCall(id="1", name="t", arguments=make()))
    if seen:
        (received,) = seen
        assert result.error is None
        assert _exact(received)
        assert _reference(schema, received, formats=False) is True
        assert "rm -rf /" not in repr(received)
    else:
        assert result.error is not None
        assert result.error.code in ("invalid_arguments", "validation_failed")


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text", JSON_TEXTS)
async def test_json_text_arguments_validate_what_the_handler_gets(
    engine: EngineName, text: str
) -> None:
    call = parse_tool_call("1", "t", text)
    result, seen = await _dispatch(engine, SAFE, call)
    if seen:
        assert seen == [{"x": "safe"}]
        assert result.error is None
    else:
        assert result.error is not None


# --- names that generated code or pointers could misread: every keyword still applies ---
ODD_NAMES = [
    "{x}",
    "{",
    "}",
    "{{",
    "{0}",
    "{data}",
    "{data__x}",
    "%s",
    "%(x)s",
    "\\",
    "\\\\",
    '"',
    "'",
    "'''",
    '"""',
    "\n",
    "\r\n",
    "\u2028",
    "\x00",
    "a\x00b",
    "\t",
    "\\n",
    "\\u0041",
    "A",
    "é",
    "é",
    "😀",
    "",
    " ",
    "constructor",
    "prototype",
    "hasOwnProperty",
    "__class__",
    "__init__",
    "data",
    "data_keys",
    "self",
    "None",
    "True",
    "1",
    "01",
    "-1",
    "1.0",
    "$ref",
    "$id",
    "#",
    "/",
    "~",
    "~0",
    "~1",
    "a/b",
    "a~b",
    "format",
    "type",
    "{data!r}",
    "{data.__class__}",
    "${x}",
    "`x`",
    "#{x}",
    "\\x41",
    "\ud800",
]


def _name_cases(name: str, draft: str) -> list[tuple[dict[str, Any], Any]]:
    k = _defs(draft)
    escaped = name.replace("~", "~0").replace("/", "~1")
    dependent = "dependencies" if draft == D7 else "dependentRequired"
    base = {"$schema": draft, "type": "object"}
    return [
        ({**base, "properties": {name: {"type": "integer"}}}, {name: "s"}),
        ({**base, "required": [name]}, {}),
        ({**base, "properties": {name: True}, "additionalProperties": False}, {name + "x": 1}),
        ({**base, dependent: {name: ["zz"]}}, {name: 1}),
        ({**base, "properties": {"x": {"const": name}}}, {"x": name + "y"}),
        ({**base, "properties": {"x": {"enum": [name]}}}, {"x": "zz"}),
        ({**base, "properties": {"x": {"const": {name: 1}}}}, {"x": {name: 2}}),
        (
            {
                **base,
                k: {name: {"type": "integer"}},
                "properties": {"x": {"$ref": f"#/{k}/{escaped}"}},
            },
            {"x": "s"},
        ),
        (
            {**base, "properties": {"a": {"properties": {name: {"type": "integer"}}}}},
            {"a": {name: "s"}},
        ),
    ]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D7, D2020], ids=["7", "2020"])
@pytest.mark.parametrize("name", ODD_NAMES, ids=[ascii(n) for n in ODD_NAMES])
def test_odd_property_names_are_still_checked(engine: EngineName, draft: str, name: str) -> None:
    for schema, value in _name_cases(name, draft):
        assert_never_wider(engine, schema, value)


# --- $ref targets: containers of schemas, data, dropped keywords and keyword-owned subschemas ---
def _pointer_target_cases(d: str) -> list[tuple[dict[str, Any], Any]]:
    k = _defs(d)
    return [
        ({k: {"not": {}}, "properties": {"x": {"$ref": f"#/{k}"}}}, {"x": 1}),
        ({"properties": {"not": {}, "x": {"$ref": "#/properties"}}}, {"x": 1}),
        (
            {"properties": {"x": {"$ref": "#/properties/x/allOf"}, "y": True}, "allOf": [True]},
            {"x": 1},
        ),
        ({k: {"f": False}, "properties": {"x": {"$ref": f"#/{k}/f"}}}, {"x": 1}),
        ({k: {"t": True}, "properties": {"x": {"not": {"$ref": f"#/{k}/t"}}}}, {"x": 1}),
        (
            {"properties": {"x": {"$ref": "#/properties/y/not"}, "y": {"not": {"type": "string"}}}},
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/items"},
                    "y": {"items": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/additionalProperties"},
                    "y": {"additionalProperties": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/patternProperties/^a"},
                    "y": {"patternProperties": {"^a": {"type": "string"}}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/dependencies/a"},
                    "y": {"dependencies": {"a": {"type": "string"}}},
                }
            },
            {"x": 1},
        ),
        (
            {"properties": {"x": {"$ref": "#/properties/y/if"}, "y": {"if": {"type": "string"}}}},
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/contains"},
                    "y": {"contains": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/propertyNames"},
                    "y": {"propertyNames": {"type": "string", "maxLength": 0}},
                }
            },
            {"x": "a"},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/unevaluatedProperties"},
                    "y": {"unevaluatedProperties": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/prefixItems/0"},
                    "y": {"prefixItems": [{"type": "string"}]},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/dependentSchemas/a"},
                    "y": {"dependentSchemas": {"a": {"type": "string"}}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/contentSchema"},
                    "y": {"contentSchema": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        (
            {
                "properties": {
                    "x": {"$ref": "#/properties/y/additionalItems"},
                    "y": {"items": [{}], "additionalItems": {"type": "string"}},
                }
            },
            {"x": 1},
        ),
        ({"properties": {"x": {"$ref": "#"}}, "type": "object", "required": ["x"]}, {"x": 1}),
    ]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D7, D2020], ids=["7", "2020"])
def test_references_only_reach_schema_positions(engine: EngineName, draft: str) -> None:
    for schema, value in _pointer_target_cases(draft):
        assert_never_wider(engine, {"$schema": draft, **schema}, value)


# --- lone surrogates under `not` / in schema data: a failure is never flipped into a pass ---------
SURROGATE_CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("not pn", {"not": {"propertyNames": {"pattern": "^a"}}}, {"\ud800": 1}),
    ("not pn2", {"not": {"propertyNames": {"pattern": "^[^a]"}}}, {"\ud800": 1}),
    ("not pp", {"not": {"patternProperties": {"^[^a]": {"type": "string"}}}}, {"\ud800": "s"}),
    ("not pp2", {"not": {"patternProperties": {"^[^a]": {"type": "integer"}}}}, {"\ud800": "s"}),
    ("not pat", {"properties": {"x": {"not": {"pattern": "^[^a]"}}}}, {"x": "\ud800"}),
    ("not pat2", {"properties": {"x": {"not": {"pattern": "^a"}}}}, {"x": "\ud800"}),
    ("not not pat", {"properties": {"x": {"not": {"not": {"pattern": "^a"}}}}}, {"x": "\ud800"}),
    ("not const", {"properties": {"x": {"not": {"const": "\ud800"}}}}, {"x": "\ud800"}),
    ("not enum", {"properties": {"x": {"not": {"enum": ["\ud800"]}}}}, {"x": "\ud800"}),
    ("not maxLength", {"properties": {"x": {"not": {"maxLength": 1}}}}, {"x": "\ud800"}),
    ("not required", {"not": {"required": ["\ud800"]}}, {"\ud800": 1}),
    ("not props", {"not": {"properties": {"\ud800": {"type": "integer"}}}}, {"\ud800": 1}),
    ("props surrogate", {"properties": {"\ud800": {"type": "integer"}}}, {"\ud800": "s"}),
    ("const surrogate", {"properties": {"x": {"const": "\ud800"}}}, {"x": "\ud801"}),
    ("enum surrogate", {"properties": {"x": {"enum": ["\ud800", "a"]}}}, {"x": "\ud801"}),
    ("const pair", {"properties": {"x": {"const": "\U0001f600"}}}, {"x": "\ud83d\ude00"}),
    ("const pair2", {"properties": {"x": {"const": "\ud83d\ude00"}}}, {"x": "\U0001f600"}),
    (
        "addl surrogate",
        {"properties": {"\ud800": True}, "additionalProperties": False},
        {"\ud801": 1},
    ),
    ("uniq surrogate", {"properties": {"x": {"uniqueItems": True}}}, {"x": ["\ud800", "\ud800"]}),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("schema", "value"), [pytest.param(s, v, id=i) for i, s, v in SURROGATE_CASES]
)
def test_lone_surrogates_never_flip_a_negation(
    engine: EngineName, schema: dict[str, Any], value: Any
) -> None:
    assert_never_wider(engine, schema, value)


# --- `$schema` spellings other than the published identifiers are refused (see finding 5 for https)
ODD_SCHEMA_URIS: list[Any] = [
    "",
    None,
    7,
    [D7],
    {"$ref": "#"},
    "http://json-schema.org/schema#",
    "http://json-schema.org/draft-03/schema#",
    "http://json-schema.org/draft-05/schema#",
    "https://json-schema.org/draft/next/schema",
    "http://json-schema.org/draft-07/schema#foo",
    "http://json-schema.org/draft-07/schema#/definitions",
    " http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema# ",
    "http://json-schema.org/draft-07/schema#\n",
    "http://json-schema.org/draft-07/schema##",
    "HTTP://json-schema.org/draft-07/schema#",
    "http://JSON-SCHEMA.org/draft-07/schema#",
    "http://json-schema.org:80/draft-07/schema#",
    "http://json-schema.org/draft-07/schema?#",
    "http://json-schema.org/draft-07/./schema#",
    "http://json-schema.org/draft-07/schema%23",
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("uri", ODD_SCHEMA_URIS, ids=[ascii(u) for u in ODD_SCHEMA_URIS])
def test_unpublished_schema_uris_are_refused(engine: EngineName, uri: Any) -> None:
    schema = {
        "$schema": uri,
        "properties": {"x": {"$ref": "#/definitions/s", "maxLength": 2}},
        "definitions": {"s": {"type": "string"}},
    }
    result = _validator(engine, False).validate(schema, {"x": "abcdef"})
    assert not result.ok
    assert result.errors[0].path is None


# --- malformed keyword values: refused, or read the way the reference reads them ------------------
MALFORMED: list[dict[str, Any]] = [
    {"maxLength": 2.0},
    {"maxLength": True},
    {"maxLength": "2"},
    {"maxLength": -1},
    {"maxLength": 1e30},
    {"maxItems": 1.0},
    {"minProperties": 1.0},
    {"maximum": True},
    {"minimum": False},
    {"maximum": "5"},
    {"maximum": None},
    {"multipleOf": True},
    {"multipleOf": 0},
    {"multipleOf": -2},
    {"type": "Integer"},
    {"type": "int"},
    {"type": ["string", "String"]},
    {"type": []},
    {"type": None},
    {"type": ["string", "string"]},
    {"enum": "abc"},
    {"enum": {"a": 1}},
    {"enum": None},
    {"const": float("1e308")},
    {"required": "abc"},
    {"required": [1]},
    {"required": ["a", "a"]},
    {"required": True},
    {"properties": []},
    {"properties": {"a": 1}},
    {"properties": {"a": None}},
    {"items": 1},
    {"items": None},
    {"additionalProperties": 1},
    {"additionalProperties": None},
    {"not": 1},
    {"not": None},
    {"not": []},
    {"allOf": {}},
    {"allOf": []},
    {"anyOf": []},
    {"oneOf": []},
    {"allOf": [1]},
    {"pattern": 1},
    {"pattern": None},
    {"patternProperties": {"a": 1}},
    {"patternProperties": []},
    {"dependencies": {"a": "b"}},
    {"dependencies": {"a": 1}},
    {"dependencies": []},
    {"dependentRequired": {"a": "b"}},
    {"dependentRequired": {"a": [1]}},
    {"uniqueItems": 1},
    {"uniqueItems": "true"},
    {"exclusiveMinimum": "1"},
    {"exclusiveMaximum": None},
    {"format": 1},
    {"format": None},
    {"contains": 1},
    {"propertyNames": 1},
    {"if": 1},
    {"then": 1},
    {"$ref": 1},
    {"$ref": None},
    {"$ref": ""},
    {"$ref": "#", "$defs": 1},
    {"minContains": -1, "contains": True},
    {"maxContains": 1.5, "contains": True},
    {"prefixItems": {}},
    {"prefixItems": []},
    {"unevaluatedItems": 1},
    {"$defs": []},
    {"definitions": []},
    {"$anchor": "1a"},
    {"$anchor": 1},
    {"$comment": 1},
    {"$id": 1},
    {"title": 1},
    {"default": "object"},
]
MALFORMED_VALUES: list[Any] = [
    "a",
    "abc",
    "",
    1,
    2,
    5,
    1.5,
    True,
    None,
    [],
    [1, 1],
    {"a": 1},
    {"b": 1},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D4, D7, D2020], ids=["4", "7", "2020"])
@pytest.mark.parametrize("negate", [False, True], ids=["plain", "not"])
@pytest.mark.parametrize("sub", MALFORMED, ids=[str(n) for n in range(len(MALFORMED))])
def test_malformed_keywords_never_widen(
    engine: EngineName, draft: str, negate: bool, sub: Any
) -> None:
    inner = {"not": sub} if negate else sub
    for value in MALFORMED_VALUES:
        assert_never_wider(engine, _x(inner, draft), {"x": value})


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("concurrency", [1, 2])
async def test_a_handler_mutating_shared_arguments_never_reaches_another_call(
    engine: EngineName, concurrency: int
) -> None:
    """Two calls share one arguments object; the first handler rewrites it (and its own copy)."""
    schema = {
        "type": "object",
        "properties": {"x": {"const": "safe"}, "y": {"items": {"const": "safe"}}},
        "required": ["x"],
    }
    shared: dict[str, Any] = {"x": "safe", "y": ["safe"]}
    received: list[Any] = []

    async def mutate(args: Any, context: ToolExecutionContext) -> str:
        args["x"] = "rm -rf /"
        args["y"].append("rm -rf /")
        shared["x"] = "rm -rf /"
        shared["y"].append("rm -rf /")
        return "mutated"

    async def victim(args: Any, context: ToolExecutionContext) -> str:
        received.append(args)
        return "ran"

    registry = ToolRegistry(
        [
            ToolDefinition(name="m", execute=mutate, parameters=schema),
            ToolDefinition(name="v", execute=victim, parameters=schema),
        ]
    )
    options = JsonSchemaValidatorOptions(engine=engine)
    gates = ToolGates(validator=create_json_schema_tool_argument_validator(options=options))
    calls = [
        ToolCall(id="1", name="m", arguments=shared),
        ToolCall(id="2", name="v", arguments=shared),
    ]
    results = await dispatch_tool_calls_in_order(
        calls, tool_concurrency=concurrency, registry=registry, gates=gates
    )
    assert results[0].error is None
    if received:
        assert received == [{"x": "safe", "y": ["safe"]}]
    else:
        assert results[1].error is not None
        assert results[1].error.code == "validation_failed"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D4, D7, D2020], ids=["4", "7", "2020"])
@pytest.mark.parametrize("fmt", ["email", "ipv4", "uuid", "date", "regex", "hostname", "made-up"])
def test_unasserted_formats_are_annotations_even_under_not(
    engine: EngineName, draft: str, fmt: str
) -> None:
    for text in ("a@b.c", "x", "1.2.3.4", "(", "2020-01-01"):
        for sub in ({"format": fmt}, {"not": {"format": fmt}}):
            assert_never_wider(engine, _x(sub, draft), {"x": text})


# --- two patterns that spell out to one text: both still apply (or the schema is refused) -------
SAME_SPELLING: list[tuple[str, str, str]] = [
    ("^\\d$", "^[0-9]$", "1"),
    ("^\\u0041$", "^\\x41$", "A"),
    ("^\\u{41}$", "^\\u0041$", "A"),
    ("^\\x41$", "^\\u{41}$", "A"),
    ("^\\x41$", "^\\u{0041}$", "A"),
    ("^\\w$", "^[a-zA-Z0-9_]$", "a"),
    ("^.$", "^[^\\n\\r\\u2028\\u2029]$", "a"),
    (
        "^\\s$",
        "^[\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]$",
        " ",
    ),
    ("^[a-b-c]$", "^[a-b\\-c]$", "-"),
    ("^\\/$", "^/$", "/"),
    ("^\\-$", "^-$", "-"),
    ("^a{1}$", "^a$", "a"),
    ("^\\.$", "^[.]$", "."),
    ("^\\0$", "^\\x00$", "\x00"),
    ("^\\t$", "^\\x09$", "\t"),
    ("^\\p{Lu}$", "^\\p{gc=Lu}$", "A"),
    ("^\\p{sc=Greek}$", "^\\p{Script=Greek}$", "α"),
    ("^(?<n>a)$", "^(a)$", "a"),
    ("^(?:a)$", "^(a)$", "a"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("draft", [D7, D2020], ids=["7", "2020"])
@pytest.mark.parametrize(
    ("first", "second", "key"), SAME_SPELLING, ids=[str(n) for n in range(len(SAME_SPELLING))]
)
def test_patterns_spelled_alike_never_shadow_each_other(
    engine: EngineName, draft: str, first: str, second: str, key: str
) -> None:
    validator = _validator(engine, False)
    both = {
        "$schema": draft,
        "patternProperties": {first: {"type": "integer"}, second: {"type": "string"}},
    }
    assert not validator.validate(both, {key: "s"}).ok
    assert not validator.validate(both, {key: 1}).ok
    clash = _x({"allOf": [{"pattern": first}, {"not": {"pattern": second}}]}, draft)
    assert not validator.validate(clash, {"x": key}).ok


# --- equality of numbers at the edges of int64/float53, nested in arrays and objects --------------
EDGE_NUMBERS: list[Any] = [
    2**53,
    2**53 + 1,
    9007199254740992.0,
    9007199254740994.0,
    2**64,
    2**64 + 1,
    18446744073709551616.0,
    2**63,
    2**63 - 1,
    9.223372036854776e18,
    -(2**63),
    -(2**63) - 1,
    10**30,
    1e30,
    10**30 + 1,
    0,
    -0.0,
    0.0,
    1,
    1.0,
    True,
    False,
    2**1000,
    float(2**1000),
    2**1000 + 1,
]
EDGE_PAIRS = list(itertools.combinations(EDGE_NUMBERS, 2))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("negate", [False, True], ids=["plain", "not"])
def test_equality_of_edge_numbers_never_widens(engine: EngineName, negate: bool) -> None:
    def wrap(sub: dict[str, Any]) -> dict[str, Any]:
        return {"properties": {"x": {"not": sub} if negate else sub}}

    for a, b in EDGE_PAIRS:
        for items in ([a, b], [[a], [b]], [{"k": a}, {"k": b}]):
            assert_never_wider(engine, wrap({"uniqueItems": True}), {"x": items})
        assert_never_wider(engine, wrap({"const": [a]}), {"x": [b]})
        assert_never_wider(engine, wrap({"enum": [{"k": a}]}), {"x": {"k": b}})


DRAFT4_BOOLEAN_SUBSCHEMAS: list[Any] = [
    {"not": False},
    {"not": True},
    {"items": False},
    {"items": True},
    {"properties": {"a": False}},
    {"allOf": [False]},
    {"anyOf": [True]},
    {"items": [False]},
    {"additionalItems": False, "items": [True]},
    {"dependencies": {"a": False}},
    {"patternProperties": {"a": False}},
    False,
    True,
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "sub", DRAFT4_BOOLEAN_SUBSCHEMAS, ids=[str(n) for n in range(len(DRAFT4_BOOLEAN_SUBSCHEMAS))]
)
def test_draft4_refuses_boolean_subschemas(engine: EngineName, sub: Any) -> None:
    """Draft-04 has no boolean schemas (its `additionalProperties: false` is a keyword form)."""
    result = _validator(engine, False).validate({"$schema": D4, "properties": {"x": sub}}, {"x": 1})
    assert not result.ok
    assert result.errors[0].path is None
    assert "needs draft-06 or later" in result.errors[0].message
