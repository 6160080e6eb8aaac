"""Outside red team, round 4 (cost): attacks on the round-3 fixes (string-keyed uniqueItems,
bounded jsonschema-rs errors, the child-interpreter compile) that held. Each stays as a
regression test; bounds are the documented budgets (100 ms of CPU and 64 MiB for a legal pair,
abort within its grace) through ``scaled``."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any, Literal, cast

import anyio
import prism_jsonschema_tests_attacks as attacks  # loaded by conftest.py
import pytest

from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

Engine = Literal["fastjsonschema", "jsonschema-rs"]
ENGINES = ["fastjsonschema", "jsonschema-rs"]
CPU_BUDGET = 0.1
MEMORY_BUDGET = 64 * 2**20
UNIQUE: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "array", "uniqueItems": True}},
}


def _validator(engine: str, **options: Any) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=cast(Engine, engine), **options)
    )


def _measured(
    validator: JsonSchemaArgumentValidator, schema: Any, value: Any
) -> tuple[Any, float, int]:
    """The verdict, CPU seconds and peak traced bytes of a validation after the compile."""
    validator.validate(schema, {})
    tracemalloc.start()
    started = time.thread_time()
    try:
        result = validator.validate(schema, value)
        return result, time.thread_time() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_unique_items_over_items_sharing_a_megabyte_string_is_cheap() -> None:
    """2,000 distinct items each holding one shared 1,000,000-character string: fastjsonschema's
    string key of an item never copies the string (measured 2-32 ms CPU, 0.4 MiB peak).
    jsonschema-rs hashes the text of every item: finding 4 of test_redteam4_cost_findings.py."""
    engine = "fastjsonschema"
    text = "x" * 1_000_000
    for value in (
        {"a": [[text, k] for k in range(2_000)]},
        {"a": [{"k": text, "i": k} for k in range(2_000)]},
    ):
        result, cpu, peak = _measured(_validator(engine), UNIQUE, value)
        assert result.ok
        assert cpu < scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"
        assert peak < MEMORY_BUDGET, f"{peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("engine", ENGINES)
def test_unique_items_over_deep_items_and_widest_integers_is_cheap(engine: str) -> None:
    """Items nested 60 deep around a shared megabyte string, and 5,000 integers of 2,047 bits
    (str() of a big int is quadratic; the keys are hexadecimal): measured 13 and 21 ms."""
    text = "x" * 1_000_000

    def deep(item: Any) -> Any:
        for _ in range(60):
            item = [item]
        return item

    widest = 5_000 if engine == "fastjsonschema" else 90  # rs weighs them (bits/64)**2
    for value in (
        {"a": [deep([text, k]) for k in range(20)]},
        {"a": [2**2047 - k for k in range(widest)]},
    ):
        result, cpu, peak = _measured(_validator(engine), UNIQUE, value)
        assert result.ok
        assert cpu < scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"
        assert peak < MEMORY_BUDGET, f"{peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 1.0], False),
        ([0, -0.0], False),
        ([True, 1], True),
        ([False, 0], True),
        ([[1], [True]], True),
        ([{"a": 1}, {"a": 1.0}], False),
        ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
        ([2**60, float(2**60)], False),
        ([2**53 + 1, float(2**53)], True),
        ([0.30000000000000004, 0.3], True),
        (["1", 1], True),
        ([None, False], True),
    ],
)
def test_unique_items_keys_keep_json_equality(engine: str, items: list[Any], unique: bool) -> None:
    """String keys neither merge distinct JSON values (true vs 1) nor split equal ones."""
    result = _validator(engine).validate(UNIQUE, {"a": items})
    assert result.ok is unique, result


@pytest.mark.parametrize("max_errors", [8, 64])
def test_jsonschema_rs_errors_stay_small_however_big_the_failing_values(max_errors: int) -> None:
    """Failing items holding 1 KB to 1 MB strings, a missing property next to a megabyte sibling,
    900 extra 1 KB property names: every message stays short (measured at most 300 characters,
    19,200 in all at max_errors=64, under 3 ms CPU)."""
    validator = _validator("jsonschema-rs", max_errors=max_errors)
    strings: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "string"}}},
    }
    closed: dict[str, Any] = {"type": "object", "additionalProperties": False}
    pairs: list[tuple[dict[str, Any], Any]] = [
        (strings, {"a": [{"k": "x" * 1_000, "i": k} for k in range(64)]}),
        (strings, {"a": [["x" * 1_000] * 15 for _ in range(64)]}),
        (strings, {"a": [{"k": "z" * 1_000_000} for _ in range(4)]}),
        ({"type": "object", "required": ["zz"]}, {"big": "z" * 1_000_000}),
        (closed, {("n" * 1_000 + str(k)): 1 for k in range(900)}),
    ]
    for schema, value in pairs:
        result, cpu, peak = _measured(validator, schema, value)
        assert not result.ok
        assert 1 <= len(result.errors) <= max_errors
        assert all(len(error.message) <= 400 for error in result.errors), result
        assert cpu < scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms"
        assert peak < MEMORY_BUDGET


def _wait_for_no_children(deadline: float) -> None:
    """Bounded wait until this process has no compile child left (the abandoned compiles)."""
    ends = time.monotonic() + deadline
    while attacks.compile_children() and time.monotonic() < ends:
        time.sleep(0.05)


async def _ran(args: Any, ctx: ToolExecutionContext) -> str:
    return "ran"


async def _aborted_first_compiles(count: int) -> float:
    """Seconds from the abort to the return of a batch of ``count`` first compiles of distinct
    schemas whose generated source is over 16 KiB (each compiled in a child interpreter)."""
    tools = [
        ToolDefinition(
            name=f"t{i}",
            execute=_ran,
            parameters={
                "type": "object",
                "properties": {f"p{i}_{k}": {"minimum": k} for k in range(120)},
            },
        )
        for i in range(count)
    ]
    calls = [ToolCall(id=str(i), name=f"t{i}", arguments={}) for i in range(count)]
    controller = AbortController()
    validate = create_json_schema_tool_argument_validator()
    aborted_at = [0.0]
    with anyio.fail_after(scaled(60)):
        async with anyio.create_task_group() as group:

            async def abort_soon() -> None:
                await anyio.sleep(0.3)
                aborted_at[0] = time.perf_counter()
                controller.abort("stop")

            group.start_soon(abort_soon)
            results = await dispatch_tool_calls_in_order(
                calls,
                registry=ToolRegistry(tools),
                gates=ToolGates(validator=validate),
                signal=controller.signal,
                abort_grace_seconds=0.2,
                tool_concurrency=count,
            )
    assert len(results) == count
    return time.perf_counter() - aborted_at[0]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_an_abort_returns_within_its_grace_while_child_compiles_run(backend: str) -> None:
    """Six concurrent first compiles in child interpreters: the abort returns within its 0.2 s
    grace (measured 0.20-0.34 s under load, with 20-40 calls). What the children do after it
    is finding 2 of test_redteam4_cost_findings.py."""
    try:
        elapsed = anyio.run(_aborted_first_compiles, 6, backend=backend)
    finally:
        _wait_for_no_children(scaled(60))
    assert elapsed < scaled(0.2 + 0.5), f"{elapsed:.2f} s"
