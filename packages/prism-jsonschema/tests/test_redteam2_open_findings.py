"""Outside red team, round 2: attacks that still BREAK a claim of issue 25 / docs/jsonschema.md.

Each test asserts the claimed behaviour, so it fails while the attack works. The module is
skipped for the integrator, who removes the skip once the finding is fixed.
"""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import time
import tracemalloc
from typing import Any

import anyio
import pytest

from prism.core import (
    AbortController,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    create_tool_registry,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.testing import scaled
from prism.jsonschema import (
    JsonSchemaArgumentValidator,
    JsonSchemaValidatorOptions,
    create_json_schema_tool_argument_validator,
)

pytestmark = pytest.mark.skip(reason="open red-team findings for the integrator")

ENGINES = ("fastjsonschema", "jsonschema-rs")

# RE2 cannot keep this in its DFA (about a thousand NFA states), so it falls back to the NFA:
# linear, but with a constant of about 50 microseconds per character.
NESTED_REPEAT = "(((a|b){1,10}){1,10}){1,10}c"


def _ab(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ab") for _ in range(n))


def _cpu(validator: JsonSchemaArgumentValidator, schema: Any, value: Any) -> tuple[float, Any]:
    start = time.thread_time()
    result = validator.validate(schema, value)
    return time.thread_time() - start, result


def _fan_out(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    """A legal ``$ref`` fan-out: 2**levels uses of ``leaf`` with 2 * levels references."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = leaf
    return {"$defs": defs, "type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}}


# --- (2) work not bounded: pattern cost and string length ------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_one_pattern_on_one_string_within_the_defaults_stays_under_100_ms_of_cpu(
    engine: Any,
) -> None:
    """Measured: 3.4 s (fastjsonschema) and 3.5 s (jsonschema-rs) of CPU for one string."""
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": NESTED_REPEAT}},
    }
    assert validator.validate(schema, {"x": "ac"}).ok  # compiled and cached
    text = _ab(65_536)  # exactly max_pattern_input_length
    # Control: a DFA-friendly pattern on the same string is cheap, so the time is the pattern's.
    cheap: dict[str, Any] = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": "[ab]*c"}},
    }
    validator.validate(cheap, {"x": "c"})
    cheap_cpu, _ = _cpu(validator, cheap, {"x": text})
    assert cheap_cpu < scaled(0.1)
    cpu, result = _cpu(validator, schema, {"x": text})
    assert not result.ok
    assert cpu < scaled(0.1), f"one validation took {cpu * 1000:.0f} ms of CPU"


def test_ref_fan_out_times_a_long_string_stays_under_100_ms_of_cpu_on_jsonschema_rs() -> None:
    """Measured: 6.1 s. The work budget counts JSON nodes (2 here), not characters scanned."""
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs")
    )
    schema = _fan_out(11, {"type": "string", "pattern": "^(b|a)*(b|c)$"})
    value = {"x": "b" * 65_536}
    assert validator.validate(schema, {"x": "b"}).ok  # legal: compiled and cached
    # Control: the same leaf used once costs a 2,048th of it.
    once = _fan_out(0, {"type": "string", "pattern": "^(b|a)*(b|c)$"})
    validator.validate(once, {"x": "b"})
    once_cpu, _ = _cpu(validator, once, value)
    assert once_cpu < scaled(0.1)
    cpu, result = _cpu(validator, schema, value)
    assert result.ok
    assert cpu < scaled(0.1), f"one validation took {cpu * 1000:.0f} ms of CPU"


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("iri", "http://a/" + "\u00e9" * 900_000),  # measured 3.2 s
        ("uri-template", "{a}" * 200_000),  # measured 2.4 s
        ("json-pointer", "/a" * 400_000),  # measured 1.6 s
    ],
)
def test_ref_fan_out_times_a_long_formatted_string_stays_under_100_ms_on_jsonschema_rs(
    fmt: str, text: str
) -> None:
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs", validate_formats=True)
    )
    schema = _fan_out(11, {"type": "string", "format": fmt})
    validator.validate(schema, {"x": "/"})
    cpu, result = _cpu(validator, schema, {"x": text})
    assert result.ok
    assert cpu < scaled(0.1), f"one validation took {cpu * 1000:.0f} ms of CPU"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "patternProperties": {"^a": {}}},
        {"type": "object", "not": {"patternProperties": {"^a": False}}},
        {"type": "object", "patternProperties": {"^a": {}}, "additionalProperties": False},
    ],
)
def test_a_property_name_over_max_pattern_input_length_is_invalid_on_jsonschema_rs(
    schema: dict[str, Any],
) -> None:
    """Documented: a longer string or property name "makes the value invalid, even under
    ``not``". fastjsonschema says so; jsonschema-rs matches the 70,000-character name anyway
    and passes the value (the engines disagree)."""
    value = {"a" * 70_000: 1}
    fast = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="fastjsonschema"))
    assert not fast.validate(schema, value).ok  # control: the other engine holds the bound
    rs = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
    assert not rs.validate(schema, value).ok


_ERRORS_SCRIPT = """
import json, resource, sys, time
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
v = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=sys.argv[1]))
schema = {"type": "object", "properties": {"x": {"allOf": [{"type": "integer"}] * 250}}}
assert v.validate(schema, {"x": 1}).ok
value = {"x": "a" * 1_000_000}
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.thread_time()
result = v.validate(schema, value)
cpu = time.thread_time() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"ok": result.ok, "errors": len(result.errors), "cpu": cpu, "kib": grown}))
"""


def test_collecting_errors_about_one_long_string_stays_within_64_mib_and_100_ms() -> None:
    """250 failing ``type`` checks on a 1,000,000-character string are within both collection
    bounds (expanded size x 2 nodes <= 1,024; 2 x weight <= 65,536), and jsonschema-rs builds
    every error quoting the whole string: measured 955 MiB of RSS and 788 ms of CPU."""
    out = subprocess.run(
        [sys.executable, "-c", _ERRORS_SCRIPT, "jsonschema-rs"],
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["ok"] is False
    assert report["kib"] <= 64 * 1024, f"peak RSS grew by {report['kib'] // 1024} MiB"
    assert report["cpu"] < scaled(0.1), f"took {report['cpu'] * 1000:.0f} ms of CPU"


# --- (2) cache memory: dropped keywords are held by identity aliases -----------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_the_cache_holds_no_more_than_it_counts_when_schemas_carry_dropped_keywords(
    engine: str,
) -> None:
    """``default`` and unknown keywords are dropped unread (so no schema bound sees them), but
    each identity alias keeps the caller's whole object alive: measured 373 MiB held by a
    cache that counted 3 KiB (8 equal schemas, each with an 8 MB ``default`` and a 400,000-item
    ``x-blob``)."""
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_cache_bytes=1 << 20)
    )
    validator.validate({"type": "object"}, {})  # process-wide caches warmed
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(8):  # equal schemas in new objects, as a host rebuilding its tools does
            schema: dict[str, Any] = {"type": "object", "default": "d" * 8_000_000}
            assert validator.validate(schema, {"a": 1}).ok
            del schema
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    counted = validator.cache_bytes()
    assert counted <= 1 << 20
    assert held <= counted + (4 << 20), f"held {held >> 20} MiB, counted {counted >> 10} KiB"


# --- (3) the loop and abort ------------------------------------------------------------------


async def _ran(args: Any, ctx: ToolExecutionContext) -> str:
    return "ran"


def _pattern_tool() -> ToolDefinition:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "x": {"type": "array", "items": {"type": "string", "pattern": NESTED_REPEAT}}
        },
    }
    return ToolDefinition(name="t", execute=_ran, parameters=schema)


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
async def test_the_loop_keeps_ticking_while_a_cached_pattern_validates(engine: Any) -> None:
    """Measured: one 8,000-character string stalled the loop for 1.35 s (fastjsonschema) and
    1.37 s (jsonschema-rs); 65,536 characters for 8.3 s and 10.8 s."""
    tool = _pattern_tool()
    registry = create_tool_registry([tool])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    warm = await dispatch_tool_call(
        ToolCall(id="0", name="t", arguments={"x": ["ac"]}), registry=registry, validate=validate
    )
    assert warm.error is None
    gaps = [0.0]
    done = anyio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await anyio.sleep(0.001)
            now = time.monotonic()
            gaps[0] = max(gaps[0], now - last)
            last = now

    with anyio.fail_after(scaled(120)):
        async with anyio.create_task_group() as group:
            group.start_soon(ticker)
            await anyio.sleep(0.01)
            result = await dispatch_tool_call(
                ToolCall(id="1", name="t", arguments={"x": [_ab(8_000)]}),
                registry=registry,
                validate=validate,
            )
            done.set()
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert gaps[0] < scaled(0.05), f"the loop stalled for {gaps[0] * 1000:.0f} ms"


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
async def test_abort_returns_within_the_grace_while_a_cached_pattern_validates(
    engine: Any,
) -> None:
    tool = _pattern_tool()
    registry = create_tool_registry([tool])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    warm = await dispatch_tool_call(
        ToolCall(id="0", name="t", arguments={"x": ["ac"]}), registry=registry, validate=validate
    )
    assert warm.error is None
    controller = AbortController()
    arguments = {"x": [_ab(65_536, seed) for seed in range(2)]}
    with anyio.fail_after(scaled(300)):
        async with anyio.create_task_group() as group:

            async def abort_soon() -> None:
                await anyio.sleep(0.05)
                controller.abort("user stop")

            group.start_soon(abort_soon)
            started = time.monotonic()
            results = await dispatch_tool_calls_in_order(
                [ToolCall(id="c1", name="t", arguments=arguments)],
                signal=controller.signal,
                abort_grace_seconds=0.05,
                registry=registry,
                validate=validate,
            )
            elapsed = time.monotonic() - started
    assert len(results) == 1
    assert results[0].error is not None
    assert elapsed < scaled(2.0), f"abort returned after {elapsed:.1f} s"
