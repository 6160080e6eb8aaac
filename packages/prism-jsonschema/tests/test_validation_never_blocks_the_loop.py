"""Validation whose work is not provably small runs off the event loop: during the heaviest
legal validation the loop keeps ticking, and an abort returns within its grace whatever the
validator is doing."""

from __future__ import annotations

import threading
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
    dispatch_tool_calls_in_order,
)
from prism.core.testing import longest_loop_gap, scaled
from prism.jsonschema import JsonSchemaValidatorOptions, create_json_schema_tool_argument_validator

pytestmark = pytest.mark.anyio

HEAVIEST = {
    "type": "object",
    "properties": {
        "m": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    },
}


def heaviest_legal_arguments() -> dict[str, Any]:
    """Just under the default max_validation_work (100,000) for ``HEAVIEST``."""
    return {"m": [[1] * 9_000 for _ in range(11)]}


async def _ran(args: Any, ctx: ToolExecutionContext) -> str:
    return "ran"


@pytest.mark.alone  # a 50 ms loop-gap bound: another worker's CPU work would stretch it
async def test_the_loop_keeps_ticking_during_the_heaviest_legal_validation(engine: str) -> None:
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    tool = ToolDefinition(name="t", execute=_ran, parameters=HEAVIEST)
    arguments = heaviest_legal_arguments()

    async def once() -> Any:
        verdict = validate(tool, arguments, None)
        return await verdict if hasattr(verdict, "__await__") else verdict

    assert await once() is None  # compiles (off the loop) and passes
    with anyio.fail_after(scaled(30)):
        verdict, gap = await longest_loop_gap(once)
    assert verdict is None
    assert gap < scaled(0.05), f"the loop stalled for {gap * 1000:.0f} ms"


async def test_abort_returns_while_a_validation_is_still_running(engine: str) -> None:
    release = threading.Event()
    entered = threading.Event()
    factory: Any = create_json_schema_tool_argument_validator
    validate = factory(options=JsonSchemaValidatorOptions(engine=engine))
    real = validate.validator._run

    def stuck(entry: Any, value: Any) -> Any:  # a validator that does not return for a while
        entered.set()
        release.wait(30)
        return real(entry, value)

    tool = ToolDefinition(name="t", execute=_ran, parameters=HEAVIEST)
    arguments = heaviest_legal_arguments()
    validate.validator.validate(HEAVIEST, arguments)  # compiled: only the validation is slow
    validate.validator._run = stuck
    controller = AbortController()
    try:
        with anyio.fail_after(scaled(20)):
            async with anyio.create_task_group() as group:

                async def abort_once_validating() -> None:
                    while not entered.is_set():
                        await anyio.sleep(0.01)
                    controller.abort("user stop")

                group.start_soon(abort_once_validating)
                started = time.monotonic()
                results = await dispatch_tool_calls_in_order(
                    [ToolCall(id="c1", name="t", arguments=arguments)],
                    signal=controller.signal,
                    abort_grace_seconds=0.05,
                    registry=ToolRegistry([tool]),
                    gates=ToolGates(validator=validate),
                )
                elapsed = time.monotonic() - started
            assert not release.is_set()  # still validating when the batch returned
    finally:
        release.set()
    assert elapsed < scaled(2.0)
    assert results[0].error is not None
    assert results[0].error.code == "aborted"
