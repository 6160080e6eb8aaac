"""A cached schema whose patterns make a validation heavy never validates on the event loop, and
abort wins over it.

Outside red team, round 2 (issue 25): the schema was cached and its node work tiny, so one
8,000-character string against a pattern RE2 cannot keep in its DFA validated on the loop
(stalls of 0.9-11 s; abort after 15-26 s). The scan work (pattern weight x characters) now
decides: above ``LIGHT_WORK`` off the loop, above ``max_validation_work`` refused unrun.
"""

from __future__ import annotations

import random
import time
from typing import Any

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
from prism.core.testing import abort_after, longest_loop_gap, scaled
from prism.jsonschema import JsonSchemaValidatorOptions, create_json_schema_tool_argument_validator
from prism.jsonschema._validator import LIGHT_WORK

ENGINES = ("fastjsonschema", "jsonschema-rs")
NESTED_REPEAT = "(((a|b){1,10}){1,10}){1,10}c"  # 4,224 RE2 instructions: off the DFA


def _ab(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ab") for _ in range(n))


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


async def _warm(engine: str) -> tuple[ToolDefinition, Any, Any]:
    tool = _pattern_tool()
    registry = ToolRegistry([tool])
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)  # type: ignore[arg-type]
    )
    warm = await dispatch_tool_call(
        ToolCall(id="0", name="t", arguments={"x": ["ac"]}),
        registry=registry,
        gates=ToolGates(validator=validate),
    )
    assert warm.error is None
    return tool, registry, validate


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("length", "refused"),
    [
        (8_000, True),  # measured before: a 1.35 s stall; now refused before any engine runs
        (700, False),  # the longest legal (about 40 ms of CPU): validated in a worker thread
    ],
)
async def test_the_loop_keeps_ticking_while_a_cached_pattern_validates(
    engine: str, length: int, refused: bool
) -> None:
    tool, registry, validate = await _warm(engine)
    arguments = {"x": [_ab(length)]}
    assert validate.validator.work(tool.parameters, arguments) > LIGHT_WORK
    call = ToolCall(id="1", name="t", arguments=arguments)
    with anyio.fail_after(scaled(120)):
        result, gap = await longest_loop_gap(
            lambda: dispatch_tool_call(call, registry=registry, gates=ToolGates(validator=validate))
        )
    assert result.error is not None
    assert result.error.code == "validation_failed"
    assert ("max_validation_work" in result.error.message) is refused
    assert gap < scaled(0.05), f"the loop stalled for {gap * 1000:.0f} ms"


@pytest.mark.anyio
@pytest.mark.parametrize("engine", ENGINES)
async def test_abort_returns_within_the_grace_while_a_cached_pattern_validates(
    engine: str,
) -> None:
    """Measured before: abort returned after 15-26 s."""
    _tool, registry, validate = await _warm(engine)
    controller = AbortController()
    arguments = {"x": [_ab(65_536, seed) for seed in range(2)]}
    with anyio.fail_after(scaled(300)):
        async with anyio.create_task_group() as group:
            group.start_soon(abort_after, controller, 0.05, "user stop")
            started = time.monotonic()
            results = await dispatch_tool_calls_in_order(
                [ToolCall(id="c1", name="t", arguments=arguments)],
                signal=controller.signal,
                abort_grace_seconds=0.05,
                registry=registry,
                gates=ToolGates(validator=validate),
            )
            elapsed = time.monotonic() - started
    assert len(results) == 1
    assert results[0].error is not None
    assert elapsed < scaled(2.0), f"abort returned after {elapsed:.1f} s"
