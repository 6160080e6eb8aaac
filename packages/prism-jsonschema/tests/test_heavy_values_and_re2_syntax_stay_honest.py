"""Outside red-team round on issue 25: heavy values, RE2-only pattern syntax, big arguments.

Each test reproduced an attack that broke a claim (the cost model and engines were not honest).
Budgets are the issue's: one validation within the default bounds costs at most 100 ms of CPU
and 64 MiB of extra memory, and the event loop's heartbeat gap stays under 50 ms.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

import anyio
import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.core.testing import longest_loop_gap, scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

_CPU_BUDGET_S = 0.1
_MEMORY_BUDGET = 64 * 1024 * 1024
_GAP_BOUND_S = 0.05


def _x(sub: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": sub}}


def _object(i: int) -> dict[str, int]:
    return {**{str(j): j for j in range(30)}, "i": i}


# Each pair is within every default bound (and core's 1 MiB argument size where noted).
_HEAVY: dict[str, tuple[dict[str, Any], Any]] = {
    # 1,000 property names of 800 chars failing one pattern: ~800 KB of arguments.
    "propertyNames-pattern-x-1000-long-names": (
        {"type": "object", "propertyNames": {"pattern": "^(a|b)*c$"}},
        {("ab" * 400) + str(i): 1 for i in range(1000)},
    ),
    # enum of 300 objects of 31 keys, checked against 300 items that match none.
    "enum-of-300-objects-x-300-items": (
        _x({"type": "array", "items": {"enum": [_object(i) for i in range(300)]}}),
        {"x": [_object(-1)] * 300},
    ),
    # 9,999 floats failing multipleOf (exact arithmetic on 1.7e308 / 1e-300).
    "multipleOf-tiny-x-9999-huge-floats": (
        _x({"type": "array", "items": {"multipleOf": 1e-300}}),
        {"x": [1.7e308] * 9_999},
    ),
    # 9,999 strings of 100 chars failing a pattern.
    "pattern-x-9999-strings": (
        _x({"type": "array", "items": {"pattern": "^(a|b)*c$"}}),
        {"x": ["ab" * 50] * 9_999},
    ),
}


def _measure(validator: JsonSchemaArgumentValidator, schema: Any, value: Any) -> tuple[float, int]:
    """CPU seconds of one cached validation (this thread's CPU time: the engines validate in
    the calling thread, and other threads' work is not this validation's), then its peak
    of traced Python memory in a second run (tracing slows allocation, so not timed)."""
    validator.validate(schema, {})  # compile first: only the validation is measured
    start = time.thread_time()
    validator.validate(schema, value)
    cpu = time.thread_time() - start
    tracemalloc.start()
    try:
        validator.validate(schema, value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return cpu, peak


@pytest.mark.parametrize("name", sorted(_HEAVY))
@pytest.mark.parametrize("max_errors", [1, 8, 64])
def test_one_validation_stays_within_cpu_and_memory_budget(
    engine: str, name: str, max_errors: int
) -> None:
    schema, value = _HEAVY[name]
    options = JsonSchemaValidatorOptions(engine=engine, max_errors=max_errors)  # type: ignore[arg-type]
    cpu, peak = _measure(JsonSchemaArgumentValidator(options=options), schema, value)
    assert cpu < scaled(_CPU_BUDGET_S), f"{name}: {cpu * 1000:.0f} ms CPU"
    assert peak < _MEMORY_BUDGET, f"{name}: {peak / 2**20:.1f} MiB"


def test_big_integers_against_a_float_limit_stay_within_budget(engine: str) -> None:
    """9,999 integers of 2,047 bits under ``maximum: 1.5``: fastjsonschema compares them
    natively (valid); jsonschema-rs converts each through its decimal text (about 34 µs), so
    there they weigh ``(bits/64)**2`` nodes of ``max_validation_work`` and are refused."""
    schema = _x({"type": "array", "items": {"maximum": 1.5}})
    value = {"x": [-(2**2046)] * 9_999}
    options = JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    validator = JsonSchemaArgumentValidator(options=options)
    cpu, _ = _measure(validator, schema, value)
    assert cpu < scaled(_CPU_BUDGET_S), f"{cpu * 1000:.0f} ms CPU"
    result = validator.validate(schema, value)
    if engine == "fastjsonschema":
        assert result.ok
    else:
        assert not result.ok
        assert "max_validation_work" in result.errors[0].message
        few = {"x": [-(2**2046)] * 90}  # within the budget: validated, exactly
        assert validator.validate(schema, few).ok
        assert not validator.validate(schema, {"x": [2**2046] * 90}).ok


async def _ok(args: Any, context: ToolExecutionContext) -> str:
    return "ok"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "name", ["propertyNames-pattern-x-1000-long-names", "enum-of-300-objects-x-300-items"]
)
async def test_dispatch_never_stalls_the_loop(engine: str, name: str) -> None:
    schema, value = _HEAVY[name]
    registry = ToolRegistry([ToolDefinition(name="t", execute=_ok, parameters=schema)])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    )
    warm = ToolCall(id="0", name="t", arguments={})
    await dispatch_tool_call(warm, registry=registry, gates=ToolGates(validator=validate))
    call = ToolCall(id="1", name="t", arguments=value)
    with anyio.fail_after(scaled(60)):
        result, gap = await longest_loop_gap(
            lambda: dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=validate))
        )
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert gap < scaled(_GAP_BOUND_S), f"heartbeat gap {gap * 1000:.0f} ms"


# RE2-only syntax, read with RE2's meaning. ECMA-262 (which JSON Schema names) has none of
# these: with the `u` flag each is a SyntaxError (so the schema must be refused), without it
# `\pL` is the literal "pL" and `\x{41}` is "x" 41 times (so the text must be invalid).
_RE2_ONLY = [
    (r"^\pL$", "a"),
    (r"^\PL$", "1"),
    (r"^\pN$", "1"),
    (r"^[\pL]$", "a"),
    (r"^\p{^L}$", "1"),
    (r"^\p{Greek}$", "α"),
    (r"^\p{Latin}$", "a"),
    (r"^\x{41}$", "A"),
    (r"^[\x{41}]$", "A"),
    (r"^\x{1F600}$", "\U0001f600"),
]


_ECMA_ESCAPES = [
    (r"^\p{L}$", "a", "1"),
    (r"^\P{L}$", "1", "a"),
    (r"^[\p{Nd}]$", "1", "a"),
    (r"^\p{Script=Greek}$", "α", "a"),
    (r"^\p{sc=Latin}$", "a", "α"),
    (r"^\x41$", "A", "x"),
    (r"^[\x41-\x43]$", "B", "D"),
    (r"^\u{1F600}$", "\U0001f600", "A"),
    (r"^a\/\.\0?$", "a/.", "a/x"),
]


@pytest.mark.parametrize(("pattern", "good", "bad"), _ECMA_ESCAPES)
def test_ecma_escapes_keep_their_meaning(engine: str, pattern: str, good: str, bad: str) -> None:
    options = JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    validator = JsonSchemaArgumentValidator(options=options)
    schema = _x({"type": "string", "pattern": pattern})
    assert validator.validate(schema, {"x": good}).ok
    assert not validator.validate(schema, {"x": bad}).ok


@pytest.mark.parametrize(("pattern", "text"), _RE2_ONLY)
def test_re2_only_pattern_syntax_is_refused_not_read_as_re2(
    engine: str, pattern: str, text: str
) -> None:
    options = JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    validator = JsonSchemaArgumentValidator(options=options)
    result = validator.validate(_x({"type": "string", "pattern": pattern}), {"x": text})
    assert not result.ok


def _shared_dag(levels: int) -> list[Any]:
    """2**levels leaves, one list object per level (shared sub-objects)."""
    node: list[Any] = [0]
    for _ in range(levels):
        node = [node, node]
    return node


def _distinct_tree(levels: int) -> list[Any]:
    return [0] if levels == 0 else [_distinct_tree(levels - 1), _distinct_tree(levels - 1)]


_BIG_ARGUMENTS: dict[str, Any] = {
    "flat-600k-zeros-refused-at-1MiB": {"x": [0] * 600_000},
    "distinct-tree-2**16-leaves": {"x": _distinct_tree(16)},
    "shared-dag-2**40-leaves-refused-at-1MiB": {"x": _shared_dag(40)},
}


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(_BIG_ARGUMENTS))
async def test_decoding_arguments_never_stalls_the_loop(engine: str, name: str) -> None:
    """Core's canonical copy of a large argument is made (or refused) off the loop."""
    registry = ToolRegistry([ToolDefinition(name="t", execute=_ok, parameters={"type": "object"})])
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    )
    call = ToolCall(id="1", name="t", arguments=_BIG_ARGUMENTS[name])
    with anyio.fail_after(scaled(60)):
        _, gap = await longest_loop_gap(
            lambda: dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=validate))
        )
    assert gap < scaled(_GAP_BOUND_S), f"heartbeat gap {gap * 1000:.0f} ms"
