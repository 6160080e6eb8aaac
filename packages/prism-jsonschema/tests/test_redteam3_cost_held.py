"""Outside red team, round 3 (cost): attacks on the documented work, loop and abort bounds
that held. Each stays as a regression test; bounds are the documented budgets (100 ms of CPU
for a legal pair, a 50 ms loop gap, abort within its grace) through ``scaled``."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any, Literal, cast

import anyio
import pytest

from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import longest_loop_gap, scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

Engine = Literal["fastjsonschema", "jsonschema-rs"]
CPU_BUDGET = 0.1
MERSENNE_61 = 2**61 - 1
HEAVY = "(((a|b){1,10}){1,10}){1,10}c"  # weight 1,057 (docs/jsonschema.md)


def _validator(engine: str, **options: Any) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=cast(Engine, engine), **options)
    )


def _cached_cpu(
    validator: JsonSchemaArgumentValidator, schema: Any, value: Any
) -> tuple[Any, float]:
    """The verdict and CPU seconds of a validation after the compile."""
    validator.validate(schema, value)
    started = time.thread_time()
    result = validator.validate(schema, value)
    return result, time.thread_time() - started


def _messages(result: Any) -> str:
    return " ".join(error.message for error in result.errors)


async def _ran(args: Any, ctx: ToolExecutionContext) -> str:
    return "ran"


# --- scan work: many patterns, names, astral text ----------------------------------------------


def test_many_heavy_pattern_properties_add_up_in_the_scan_weight(engine: str) -> None:
    """15 patterns of weight ~1,057 under patternProperties: a 200-character name is refused as
    too much scan work (scan weight 15,855), not matched 15 times (measured ~0 ms)."""
    patterns = [f"(((a|b){{1,10}}){{1,10}}){{1,10}}{chr(99 + i)}" for i in range(15)]
    schema: dict[str, Any] = {
        "type": "object",
        "patternProperties": {p: {"type": "integer"} for p in patterns},
    }
    result = _validator(engine).validate(schema, {"ab" * 100: 1})
    assert not result.ok
    assert "max_validation_work" in _messages(result)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "propertyNames": {"pattern": HEAVY}},
        {"type": "object", "additionalProperties": {"type": "string", "pattern": HEAVY}},
    ],
    ids=["propertyNames", "additionalProperties"],
)
def test_a_heavy_pattern_at_its_admitted_length_stays_within_budget(
    engine: str, schema: dict[str, Any]
) -> None:
    """500 characters (the budget admits ~750: 38-41 ms of CPU measured; 500 keeps a 3x margin
    for CI) against the weight-1,057 pattern, as a name or a value: ~28 ms on either engine."""
    text = "ab" * 250
    value = {text: 1} if "propertyNames" in schema else {"k": text}
    result, cpu = _cached_cpu(_validator(engine), schema, value)
    assert not result.ok
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


@pytest.mark.parametrize("char", ["a", "\u00e9", "\u4e00", "\U0001f600"])
def test_multibyte_text_costs_no_more_than_the_characters_counted(engine: str, char: str) -> None:
    """A class pattern that astral text keeps alive (weight 2,807) at the longest admitted
    string: UTF-8 is 4 bytes a character but the cost stays in budget (measured 15-32 ms)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"pattern": "((([^c]){1,10}){1,10}){1,10}c"}},
    }
    validator = _validator(engine)
    admitted = 0
    for length in (250, 265):  # 800,000 / 2,807 - the node work
        if validator.validate(schema, {"a": char * length}).errors[0].path == "/a":
            admitted = length
    assert admitted >= 250
    result, cpu = _cached_cpu(validator, schema, {"a": char * admitted})
    assert not result.ok
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("email", "a@" + "b." * 394_998 + "cc"),
        ("email", "a." * 394_996 + "a@b.cc"),
        ("ipv6", "1:" * 395_000),
        ("ipv4", "1." * 395_000),
        ("idn-email", "\u00e9." * 394_996 + "a@b.cc"),
    ],
    ids=["email-domain-dots", "email-local-dots", "ipv6", "ipv4", "idn-email"],
)
def test_asserted_formats_on_the_longest_admitted_strings_stay_within_budget(
    engine: str, fmt: str, text: str
) -> None:
    """Formats weigh 1, so ~790,000 characters are admitted: measured at most 8 ms."""
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"format": fmt}}}
    validator = _validator(engine, validate_formats=True)
    _result, cpu = _cached_cpu(validator, schema, {"a": text})
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


# --- comparisons, uniqueness, multipleOf --------------------------------------------------------


@pytest.mark.parametrize("keyword", ["const", "enum"])
def test_comparing_many_items_with_a_long_constant_is_counted_as_work(
    engine: str, keyword: str
) -> None:
    """An 80,000-character const/enum string against 9,990 equal items (a memcmp each): its
    characters count in the expanded size, so the value is refused before any comparison."""
    big = "x" * 80_000
    items = {keyword: big} if keyword == "const" else {keyword: [big]}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": items}},
    }
    equal = "".join(["x"] * 80_000)  # equal, not identical
    result, cpu = _cached_cpu(_validator(engine), schema, {"a": [equal] * 9_990})
    assert not result.ok
    assert "max_validation_work" in _messages(result)
    assert cpu <= scaled(CPU_BUDGET)


def test_unique_items_on_hash_colliding_integers_is_cheap_on_jsonschema_rs() -> None:
    """jsonschema-rs does not use CPython's int hash: 9,990 colliding integers take ~5 ms
    (fastjsonschema: finding 1)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "array", "uniqueItems": True}},
    }
    value = {"a": [k * MERSENNE_61 for k in range(9_990)]}
    result, cpu = _cached_cpu(_validator("jsonschema-rs"), schema, value)
    assert result.ok
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


@pytest.mark.parametrize("multiple_of", [0.7, 1e-300, 1.7976931348623157e308])
def test_an_exact_multiple_of_fails_fast_on_non_multiples(engine: str, multiple_of: float) -> None:
    """9,990 huge or tiny non-multiples: the first decides (measured ~1-3 ms)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"items": {"multipleOf": multiple_of}}},
    }
    for item in (1.7e308, 5e-324):
        result, cpu = _cached_cpu(_validator(engine), schema, {"a": [item] * 9_990})
        assert not result.ok
        assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


def test_unevaluated_properties_over_many_any_of_branches_stays_within_budget() -> None:
    """Annotation collection on jsonschema-rs: 8 anyOf branches x 900 properties ~1 ms."""
    branches = [
        {"properties": {f"p{i}": {"type": "integer"}}, "patternProperties": {f"^q{i}": {}}}
        for i in range(8)
    ]
    schema: dict[str, Any] = {"type": "object", "anyOf": branches, "unevaluatedProperties": False}
    value = {f"q{k % 8}_{k}": 1 for k in range(900)}
    result, cpu = _cached_cpu(_validator("jsonschema-rs"), schema, value)
    assert result.ok
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


# --- the loop, abort, hostile calls -------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.alone  # a loop-gap bound
async def test_a_first_jsonschema_rs_compile_of_a_large_enum_keeps_the_loop_ticking() -> None:
    """The enum that stalls fastjsonschema's compile (finding 2): ~12 ms gap on jsonschema-rs."""
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"enum": list(range(9_990))}}}
    registry = ToolRegistry([ToolDefinition(name="t", execute=_ran, parameters=schema)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs")
    )

    async def work() -> Any:
        call = ToolCall(id="1", name="t", arguments={"a": 5})
        return await dispatch_tool_call(
            call, registry=registry, gates=ToolGates(validator=validate)
        )

    with anyio.fail_after(scaled(30)):
        result, gap = await longest_loop_gap(work)
    assert result.error is None
    assert gap < scaled(0.05), f"the loop stalled for {gap * 1000:.0f} ms"


@pytest.mark.anyio
async def test_abort_returns_within_its_grace_while_heavy_validations_run() -> None:
    """Four calls whose validation takes ~0.5 s of CPU each (finding 1's pair) in one batch:
    an abort 50 ms in returns within the 0.2 s grace, one result per call (measured 0.12 s)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "array", "uniqueItems": True}},
    }
    arguments = {"a": [k * MERSENNE_61 for k in range(4_000)]}
    registry = ToolRegistry([ToolDefinition(name="t", execute=_ran, parameters=schema)])
    validate = create_json_schema_tool_argument_validator()
    controller = AbortController()
    calls = [ToolCall(id=str(i), name="t", arguments=arguments) for i in range(4)]
    started = time.perf_counter()
    with anyio.fail_after(scaled(30)):
        async with anyio.create_task_group() as group:

            async def abort_soon() -> None:
                await anyio.sleep(0.05)
                controller.abort("stop")

            group.start_soon(abort_soon)
            results = await dispatch_tool_calls_in_order(
                calls,
                registry=registry,
                gates=ToolGates(validator=validate),
                signal=controller.signal,
                abort_grace_seconds=0.2,
                tool_concurrency=4,
            )
    elapsed = time.perf_counter() - started
    assert len(results) == len(calls)
    assert elapsed < scaled(0.05 + 0.2 + 0.5), f"{elapsed:.2f} s"


def _call_raising_after(reads: int, attribute: str) -> ToolCall:
    """A ToolCall subclass whose ``attribute`` property answers ``reads`` times, then raises."""
    plain = {"id": "x", "name": "t", "arguments": {"a": 1}, "arguments_error": None}
    count = [0]

    def read(self: ToolCall) -> Any:
        count[0] += 1
        if count[0] > reads:
            raise RuntimeError(f"{attribute} read {count[0]}")
        return plain[attribute]

    cls = type("HostileCall", (ToolCall,), {attribute: property(read)})
    call: ToolCall = cls(id="x", name="t", arguments={"a": 1})
    count[0] = 0
    return call


@pytest.mark.anyio
@pytest.mark.parametrize("attribute", ["id", "name", "arguments", "arguments_error"])
async def test_a_call_whose_properties_raise_late_never_escapes_dispatch(attribute: str) -> None:
    """Properties that answer the first N reads (N = 0..11) and then raise: dispatch returns a
    result and a batch one result per call, whichever read raises."""
    registry = ToolRegistry([ToolDefinition(name="t", execute=_ran, parameters={"type": "object"})])
    gates = ToolGates(validator=create_json_schema_tool_argument_validator())
    with anyio.fail_after(scaled(30)):
        for reads in range(12):
            await dispatch_tool_call(
                _call_raising_after(reads, attribute), registry=registry, gates=gates
            )
            calls = [
                _call_raising_after(reads, attribute),
                ToolCall(id="2", name="t", arguments={}),
            ]
            results = await dispatch_tool_calls_in_order(
                calls, registry=registry, gates=gates, tool_concurrency=2
            )
            assert len(results) == 2
            assert results[1].error is None


def test_the_first_error_on_fastjsonschema_quotes_nothing_large() -> None:
    """Finding 6's pair (4 references to a 1,000,000-emoji string failing maxProperties) on
    fastjsonschema: its message names the rule only (measured 0 MiB, 0.2 ms)."""
    emoji = "\U0001f600" * 1_000_000
    value = {f"k{i}": emoji for i in range(4)}
    schema: dict[str, Any] = {"type": "object", "maxProperties": 1}
    validator = _validator("fastjsonschema")
    validator.validate(schema, {"x": 1})
    tracemalloc.start()
    try:
        result = validator.validate(schema, value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not result.ok
    assert peak <= 8 << 20, f"{peak / 2**20:.0f} MiB peak"


@pytest.mark.parametrize("leaf", [1, "s" * 1_000, {}], ids=["int", "string", "object"])
def test_a_shared_object_dag_value_is_refused_without_unfolding(engine: str, leaf: Any) -> None:
    """A value of depth 61 whose every level holds its child twice (2**60 leaves as a tree):
    counted, shared sub-objects each time reached, and refused at the budget (~10 ms)."""
    node: Any = leaf
    for _ in range(60):
        node = [node, node]
    schemas: list[dict[str, Any]] = [
        {"type": "object"},
        {"type": "object", "properties": {"a": {"items": {"pattern": "^s"}}}},
        {"type": "object", "additionalProperties": {"type": ["array", "object"]}},
    ]
    validator = _validator(engine)
    for schema in schemas:
        result, cpu = _cached_cpu(validator, schema, {"a": node})
        assert not result.ok
        assert "max_validation_work" in _messages(result)
        assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"


@pytest.mark.parametrize(
    "node",
    [
        {"anyOf": [{"properties": {"c": {"$ref": "#/$defs/n"}}}, {"properties": {"x": {}}}]},
        {"if": {"properties": {"c": {"$ref": "#/$defs/n"}}}, "then": {"properties": {"x": {}}}},
        {
            "oneOf": [
                {"properties": {"c": {"$ref": "#/$defs/n"}}, "required": ["c"]},
                {"required": ["x"], "not": {"required": ["c"]}},
            ]
        },
        {"allOf": [{"properties": {"c": {"$ref": "#/$defs/n"}}, "unevaluatedProperties": False}]},
    ],
    ids=["anyOf", "if-then", "oneOf", "allOf-nested"],
)
def test_unevaluated_properties_through_recursion_stays_linear(node: dict[str, Any]) -> None:
    """jsonschema-rs annotation collection through one recursive route, 60 levels deep: no
    re-evaluation per ancestor (measured 0.0-6.4 ms); two routes are refused by name."""
    schema: dict[str, Any] = {
        "$defs": {"n": {"type": "object", **node, "unevaluatedProperties": False}},
        "$ref": "#/$defs/n",
    }
    value: dict[str, Any] = {"x": 1}
    for _ in range(59):
        value = {"c": value}
    _result, cpu = _cached_cpu(_validator("jsonschema-rs"), schema, value)
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"
