"""Outside red team, round 2: attacks on issue 25's claims that are HELD, kept as regressions.

Bypass attempts compare verdicts with the ``jsonschema`` package (Prism may refuse or be
stricter, never wider); work attempts assert refusal or a CPU bound; dispatch attempts go
through the real dispatch on both backends.
"""

from __future__ import annotations

import gc
import re
import time
import tracemalloc
from typing import Any

import anyio
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

ENGINES = ("fastjsonschema", "jsonschema-rs")
D2019 = "https://json-schema.org/draft/2019-09/schema"


def _validator(engine: Any, **options: Any) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine, **options))


def _reference(schema: dict[str, Any], value: Any) -> bool | None:
    """The ``jsonschema`` package's verdict, or None when it cannot read the schema."""
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        return bool(cls(schema).is_valid(value))
    except Exception:
        return None


def _never_wider(engine: Any, schema: dict[str, Any], value: Any) -> None:
    result = _validator(engine).validate(schema, value)
    if result.ok:
        assert _reference(schema, value) is True, (
            f"Prism accepted what the reference refuses: {value!r}"
        )


def _refused(engine: Any, schema: dict[str, Any], words: str) -> None:
    validator = _validator(engine)
    start = time.thread_time()
    result = validator.validate(schema, {"a": 1})
    assert time.thread_time() - start < scaled(0.1)
    assert not result.ok
    assert result.errors[0].path is None
    assert words in result.errors[0].message


# --- (1) keyword structure: names that look like keywords are names --------------------------

KEYWORD_NAMES = [
    "$ref", "$id", "$schema", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor",
    "$recursiveRef", "$comment", "id", "definitions", "items", "prefixItems", "properties",
    "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties", "allOf",
    "not", "if", "then", "const", "enum", "default", "examples", "type", "contentSchema",
]  # fmt: skip

_value = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.booleans(), st.none())


def _positions(name: str) -> list[dict[str, Any]]:
    """Schemas where ``name`` sits in a name position (property, definition, pattern, key)."""
    escaped = "^" + name.replace("$", "\\$") + "$"
    return [
        {"properties": {name: {"type": "integer"}}, "required": [name]},
        {"$defs": {name: {"type": "integer"}}, "properties": {"x": {"$ref": f"#/$defs/{name}"}}},
        {"patternProperties": {escaped: {"type": "integer"}}},
        {"dependentSchemas": {name: {"required": ["zz"]}}},
        {"dependentRequired": {name: ["zz"]}},
        {"properties": {"x": {"properties": {name: {"const": 1}}}}},
        {"propertyNames": {"not": {"const": name}}},
    ]


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(name=st.sampled_from(KEYWORD_NAMES), position=st.integers(0, 6), value=_value)
def test_property_names_shaped_like_keywords_stay_names(
    engine: Any, name: str, position: int, value: Any
) -> None:
    schema = _positions(name)[position]
    for instance in ({name: value}, {"x": value}, {"x": {name: value}}, {name: value, "zz": 1}):
        _never_wider(engine, schema, instance)


# --- (1) references: pointer escapes resolve like the reference (or are refused) -------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (  # percent-decoded: #/$defs/a%2Fconst is /$defs/a/const (data); never read as a schema
            {
                "$defs": {"a%2Fconst": {"type": "string"}, "a": {"const": {"type": "integer"}}},
                "properties": {"x": {"$ref": "#/$defs/a%2Fconst"}},
            },
            {"x": "hello"},
        ),
        (  # %25 is "%": the integer definition, not the literal "a%25" one
            {
                "$defs": {"a%25": {"type": "string"}, "a%": {"type": "integer"}},
                "properties": {"x": {"$ref": "#/$defs/a%25"}},
            },
            {"x": "hello"},
        ),
        (  # ~01 is "~1" (not "/")
            {
                "$defs": {"~1": {"type": "integer"}, "/": {"type": "string"}},
                "properties": {"x": {"$ref": "#/$defs/~01"}},
            },
            {"x": "s"},
        ),
        (  # a leading-zero index is not an array index in a JSON Pointer
            {
                "properties": {
                    "x": {"allOf": [{"type": "integer"}, {"type": "string"}]},
                    "y": {"$ref": "#/properties/x/allOf/01"},
                },
            },
            {"y": 5},
        ),
    ],
)
def test_pointer_escapes_never_retarget_a_reference(
    engine: Any, schema: dict[str, Any], value: Any
) -> None:
    _never_wider(engine, schema, value)


# --- (1) values: lone surrogates, equality of bool/int/float, key order ----------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("pattern", "text"),
    [("^a*$", "a\ud800"), ("^[a-z]+$", "ab\udc00c"), ("^[^x]*$", "\ud800x")],
)
def test_a_lone_surrogate_never_matches_by_being_dropped(
    engine: Any, pattern: str, text: str
) -> None:
    validator = _validator(engine)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": pattern}},
    }
    assert not validator.validate(schema, {"x": text}).ok
    # the failure is the value's: the schema still serves the next call
    assert validator.validate(schema, {"x": "ab"}).ok is bool(re.search(pattern, "ab"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("keyword", "value"),
    [
        ({"uniqueItems": True}, [{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
        ({"uniqueItems": True}, [[{"a": [1]}], [{"a": [1.0]}]]),
        ({"uniqueItems": True}, [0, 0.0]),
        ({"enum": [0.0]}, False),
        ({"enum": [[[0.0]]]}, [[False]]),
        ({"const": {"a": 1.0}}, {"a": True}),
        ({"const": [None]}, [False]),
        ({"enum": [{"a": 0}]}, {"a": False, "b": 0}),
    ],
)
def test_json_equality_is_not_python_equality(engine: Any, keyword: Any, value: Any) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"x": keyword}}
    assert _reference(schema, {"x": value}) is False  # control: the reference refuses
    assert not _validator(engine).validate(schema, {"x": value}).ok


_json_atom = st.one_of(st.booleans(), st.integers(-2, 2), st.sampled_from([0.0, 1.0, -0.0, 2.5]))
_json = st.recursive(
    _json_atom,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2)
    ),
    max_leaves=6,
)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=80, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(expected=_json, value=_json, kind=st.sampled_from(["const", "enum", "uniqueItems"]))
def test_const_enum_unique_items_agree_with_the_reference(
    engine: Any, expected: Any, value: Any, kind: str
) -> None:
    if kind == "const":
        keyword: dict[str, Any] = {"const": expected}
        instance: Any = value
    elif kind == "enum":
        keyword = {"enum": [expected]}
        instance = value
    else:
        keyword = {"uniqueItems": True}
        instance = [expected, value]
    schema: dict[str, Any] = {"type": "object", "properties": {"x": keyword}}
    verdict = _validator(engine).validate(schema, {"x": instance}).ok
    assert verdict == _reference(schema, {"x": instance})


# --- (2) the expanded size sees fan-out through every keyword --------------------------------


def _chain(kind: str, levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for i in range(levels):
        nxt = {"$ref": f"#/$defs/d{i + 1}"}
        defs[f"d{i}"] = {
            "dependentSchemas": {"dependentSchemas": {"k0": nxt, "k1": nxt}},
            "patternProperties": {"patternProperties": {"^a": nxt, "^a?": nxt}},
            "properties+patternProperties": {
                "properties": {"a": nxt},
                "patternProperties": {"^a$": nxt},
            },
            "items+contains": {"items": nxt, "contains": nxt},
            "if/then/else": {"if": nxt, "then": nxt, "else": nxt},
            "oneOf": {"oneOf": [nxt, nxt]},
            "not+anyOf": {"not": nxt, "anyOf": [nxt]},
            "additionalProperties+patternProperties": {
                "additionalProperties": nxt,
                "patternProperties": {"^b$": nxt},
            },
        }[kind]
    defs[f"d{levels}"] = {"type": ["object", "array", "integer"]}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "kind",
    [
        "dependentSchemas", "patternProperties", "properties+patternProperties",
        "items+contains", "if/then/else", "oneOf", "not+anyOf",
        "additionalProperties+patternProperties",
    ],
)  # fmt: skip
def test_fan_out_through_any_keyword_is_refused(engine: Any, kind: str) -> None:
    _refused(engine, _chain(kind, 16), "expanded size")


@pytest.mark.parametrize(
    ("ref", "anchor"), [("$dynamicRef", "$dynamicAnchor"), ("$ref", "$anchor")]
)
def test_fan_out_through_anchors_is_refused_on_jsonschema_rs(ref: str, anchor: str) -> None:
    defs: dict[str, Any] = {
        f"d{i}": {anchor: f"d{i}", "allOf": [{ref: f"#d{i + 1}"}, {ref: f"#d{i + 1}"}]}
        for i in range(20)
    }
    defs["d20"] = {anchor: "d20", "type": "object"}
    _refused("jsonschema-rs", {"$defs": defs, "$ref": "#/$defs/d0"}, "expanded size")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"a": {"$ref": "#"}}, "patternProperties": {"^a": {"$ref": "#"}}},
        {
            "properties": {"a": {"$ref": "#"}},
            "dependentSchemas": {"a": {"properties": {"a": {"$ref": "#"}}}},
        },
        {
            "$defs": {"n": {"properties": {"a": {"$ref": "#"}}}},
            "allOf": [{"$ref": "#/$defs/n"}, {"properties": {"a": {"$ref": "#/$defs/n"}}}],
        },
        {
            "$schema": D2019,
            "$recursiveAnchor": True,
            "properties": {"a": {"allOf": [{"$recursiveRef": "#"}, {"$recursiveRef": "#"}]}},
        },
        {"items": {"$ref": "#"}, "contains": {"$ref": "#"}, "properties": {"a": {"$ref": "#"}}},
    ],
)
def test_recursion_reaching_one_subschema_twice_is_refused(engine: Any, schema: Any) -> None:
    _refused(engine, schema, "recursion")


def test_dynamic_and_static_routes_to_the_root_are_refused_on_jsonschema_rs() -> None:
    schema: dict[str, Any] = {
        "$dynamicAnchor": "r",
        "properties": {"a": {"allOf": [{"$dynamicRef": "#r"}, {"$ref": "#"}]}},
    }
    _refused("jsonschema-rs", schema, "recursion")


def test_fan_out_times_a_long_string_stays_cheap_on_fastjsonschema() -> None:
    """The same pair took 6 s on jsonschema-rs; the scan work (scan weight 2,048 x 65,536
    characters) now refuses it on both engines before either runs."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(11)
    }
    defs["d11"] = {"type": "string", "pattern": "^(b|a)*(b|c)$"}
    schema: dict[str, Any] = {
        "$defs": defs,
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/d0"}},
    }
    validator = _validator("fastjsonschema")
    assert validator.validate(schema, {"x": "b"}).ok
    start = time.thread_time()
    result = validator.validate(schema, {"x": "b" * 65_536})
    assert time.thread_time() - start < scaled(0.1)
    assert not result.ok
    assert "max_validation_work" in result.errors[0].message


def test_collecting_errors_about_one_long_string_is_small_on_fastjsonschema() -> None:
    """The same pair is an open finding on jsonschema-rs (955 MiB there)."""
    validator = _validator("fastjsonschema")
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"allOf": [{"type": "integer"}] * 250}},
    }
    assert validator.validate(schema, {"x": 1}).ok
    value = {"x": "a" * 1_000_000}
    tracemalloc.start()
    try:
        start = time.thread_time()
        result = validator.validate(schema, value)
        cpu = time.thread_time() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.ok
    assert peak < 64 * 1024 * 1024
    assert cpu < scaled(0.1)


# --- (1)+(3) a dict that hides a key: the handler gets what was validated -------------------


class _HidesCmd(dict[str, Any]):
    """Lies about ``cmd`` through every read method but ``dict.__getitem__``."""

    def __contains__(self, key: object) -> bool:
        return key != "cmd" and dict.__contains__(self, key)

    def keys(self) -> Any:
        return [k for k in dict.keys(self) if k != "cmd"]

    def __iter__(self) -> Any:
        return iter(self.keys())

    def items(self) -> Any:
        return [(k, v) for k, v in dict.items(self) if k != "cmd"]

    def __len__(self) -> int:
        return len(self.keys())


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
        {"type": "object", "not": {"required": ["cmd"]}},
    ],
)
async def test_a_dict_that_hides_a_key_never_delivers_it(engine: Any, schema: Any) -> None:
    received: list[Any] = []

    async def handler(args: Any, ctx: ToolExecutionContext) -> str:
        received.append(dict(dict.items(args)))
        return "ran"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=schema)])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    call = ToolCall(id="1", name="t", arguments=_HidesCmd(cmd="rm -rf /", a=1))
    with anyio.fail_after(scaled(30)):
        result = await dispatch_tool_call(
            call, registry=registry, gates=ToolGates(validator=validate)
        )
    assert all("cmd" not in args for args in received), (result, received)


# --- (1) the cache never shares a compiled validator across dialects -------------------------

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
_SIBLING = {"$ref": "#/definitions/a", "type": "string"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("first", "second", "value"),
    [
        (  # draft-07 ignores $ref siblings; 2020-12 applies them
            {"$schema": D7, "definitions": {"a": {}}, "properties": {"x": _SIBLING}},
            {"definitions": {"a": {}}, "properties": {"x": _SIBLING}},
            {"x": 1},
        ),
        (  # 1.0 is an integer from draft-06 on, not in draft-04
            {"$schema": D6, "properties": {"x": {"type": "integer"}}},
            {"$schema": D4, "properties": {"x": {"type": "integer"}}},
            {"x": 1.0},
        ),
        (  # if/then exist from draft-07 on
            {"$schema": D6, "properties": {"x": {"if": {"const": 1}, "then": False}}},
            {"$schema": D7, "properties": {"x": {"if": {"const": 1}, "then": False}}},
            {"x": 1},
        ),
        (  # dependentRequired exists from 2019-09 on
            {"$schema": D7, "properties": {"x": {"dependentRequired": {"a": ["b"]}}}},
            {"properties": {"x": {"dependentRequired": {"a": ["b"]}}}},
            {"x": {"a": 1}},
        ),
    ],
)
def test_equal_documents_of_two_dialects_never_share_a_verdict(
    engine: Any, first: dict[str, Any], second: dict[str, Any], value: Any
) -> None:
    assert _reference(first, value) is True  # control: the dialects disagree on the value
    assert _reference(second, value) is False
    for order in ((first, second), (second, first)):
        validator = _validator(engine)
        verdicts = {id(schema): validator.validate(schema, value).ok for schema in order}
        assert verdicts == {id(first): True, id(second): False}


# --- (3) an off-loop validation keeps the loop ticking ---------------------------------------


@pytest.mark.anyio
async def test_the_loop_keeps_ticking_during_a_fan_out_over_a_long_string_on_jsonschema_rs() -> (
    None
):
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(8)
    }
    defs["d8"] = {"type": "string", "pattern": "^[ab]*$"}
    schema = {"$defs": defs, "type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}}

    async def handler(args: Any, ctx: ToolExecutionContext) -> str:
        return "ran"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=schema)])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs")
    )
    gaps = [0.0]
    done = anyio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await anyio.sleep(0.001)
            now = time.monotonic()
            gaps[0] = max(gaps[0], now - last)
            last = now

    with anyio.fail_after(scaled(60)):
        warm = await dispatch_tool_call(
            ToolCall(id="0", name="t", arguments={"x": "b"}),
            registry=registry,
            gates=ToolGates(validator=validate),
        )
        assert warm.error is None
        async with anyio.create_task_group() as group:
            group.start_soon(ticker)
            await anyio.sleep(0.01)
            result = await dispatch_tool_call(
                ToolCall(id="1", name="t", arguments={"x": "b" * 65_536}),
                registry=registry,
                gates=ToolGates(validator=validate),
            )
            done.set()
    # scan weight 256 x 65,536 characters: refused before the engine runs
    assert result.error is not None
    assert "max_validation_work" in result.error.message
    assert gaps[0] < scaled(0.05), f"the loop stalled for {gaps[0] * 1000:.0f} ms"


# --- (1) identity cache: an evicted entry's ids are never reused for a verdict ---------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bound", ["cache_size", "max_cache_bytes"])
def test_a_new_schema_at_a_freed_id_is_never_answered_from_an_evicted_entry(
    engine: Any, bound: str
) -> None:
    validator = _validator(engine, **{bound: 1})
    stale = 0
    for _ in range(12):
        lax = [{"type": "object", "properties": {"cmd": {"type": "string"}}} for _ in range(10)]
        for schema in lax:  # one entry with identity aliases
            assert validator.validate(schema, {"cmd": "rm"}).ok
        validator.validate({"type": "object", "maxProperties": 3}, {})  # evicts it
        del lax, schema
        gc.collect()  # the aliases' ids are free now
        strict = [{"type": "object", "properties": {"cmd": {"const": "ls"}}} for _ in range(20)]
        stale += sum(validator.validate(s, {"cmd": "rm"}).ok for s in strict)
        del strict
    assert stale == 0


# --- (1) big numbers: exact on both engines ---------------------------------------------------

_BIG = [
    ({"const": 10**300}, 1e300),
    ({"const": 1e300}, 10**300),
    ({"enum": [10**300]}, 1e300),
    ({"enum": [2**1000 + 1]}, 2**1000),
    ({"const": [2**64]}, [2**64 + 1]),
    ({"exclusiveMaximum": 2**1023}, float(2**1023)),
    ({"minimum": -(2**1000)}, -(2**1000) - 1),
    ({"multipleOf": 3}, 2**1500 + 1),
    ({"multipleOf": 1e-320}, 1),
    ({"multipleOf": 0.1}, 1e308),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("keyword", "value"), _BIG)
def test_big_numbers_are_compared_exactly(engine: Any, keyword: Any, value: Any) -> None:
    schema = {"type": "object", "properties": {"x": keyword}}
    assert _reference(schema, {"x": value}) is False  # control
    assert not _validator(engine).validate(schema, {"x": value}).ok


# --- (3) a ToolCall whose arguments change on every read -------------------------------------


class _ShiftyCall(ToolCall):
    """Safe arguments on the first read, a different command on every later one."""

    __slots__ = ("_reads",)

    @property  # type: ignore[override]
    def arguments(self) -> Any:
        reads = object.__getattribute__(self, "_reads")
        reads.append(1)
        return {"cmd": "ls"} if len(reads) == 1 else {"cmd": "rm -rf /"}


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
async def test_arguments_are_read_once_so_the_handler_gets_what_was_validated(
    engine: Any,
) -> None:
    received: list[Any] = []

    async def handler(args: Any, ctx: ToolExecutionContext) -> str:
        received.append(dict(args))
        return "ran"

    schema = {"type": "object", "properties": {"cmd": {"const": "ls"}}, "required": ["cmd"]}
    registry = ToolRegistry([ToolDefinition(name="t", execute=handler, parameters=schema)])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    call = _ShiftyCall(id="1", name="t", arguments={"cmd": "ls"})
    object.__setattr__(call, "_reads", [])
    plain = ToolCall(id="2", name="t", arguments={"cmd": "ls"})
    with anyio.fail_after(scaled(30)):
        results = await dispatch_tool_calls_in_order(
            [call, plain], registry=registry, gates=ToolGates(validator=validate)
        )
    assert len(results) == 2
    assert all(args == {"cmd": "ls"} for args in received), received
