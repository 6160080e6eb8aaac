"""A first compile runs off the event loop: an abort returns on time while it is still running."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

import prism.jsonschema._validator as validator_module
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
from prism.jsonschema import JsonSchemaValidatorOptions, create_json_schema_tool_argument_validator

pytestmark = pytest.mark.anyio


async def _ran(args: Any, ctx: ToolExecutionContext) -> str:
    return "ran"


async def test_abort_returns_while_the_compile_is_still_running(
    engine: str, monkeypatch: Any
) -> None:
    release = threading.Event()
    entered = threading.Event()
    real = getattr(validator_module, "compile_checked")  # noqa: B009

    def slow_compile(*args: Any) -> Any:  # stands in for a compile that takes seconds
        entered.set()
        release.wait(30)
        return real(*args)

    monkeypatch.setattr(validator_module, "compile_checked", slow_compile)
    tool = ToolDefinition(
        name="t", execute=_ran, parameters={"properties": {"a": {"type": "string"}}}
    )
    controller = AbortController()
    try:
        with anyio.fail_after(scaled(20)):
            async with anyio.create_task_group() as group:

                async def abort_once_compiling() -> None:
                    while not entered.is_set():
                        await anyio.sleep(0.01)
                    controller.abort("user stop")

                group.start_soon(abort_once_compiling)
                results = await dispatch_tool_calls_in_order(
                    [ToolCall(id="c1", name="t", arguments={"a": "x"})],
                    signal=controller.signal,
                    abort_grace_seconds=0.05,
                    registry=ToolRegistry([tool]),
                    gates=ToolGates(
                        validator=create_json_schema_tool_argument_validator(
                            options=JsonSchemaValidatorOptions(engine=engine)
                        )
                    ),
                )
            assert not release.is_set()  # the compile was still blocked when the batch returned
    finally:
        release.set()
    assert results[0].error is not None
    assert results[0].error.code == "aborted"


def test_outside_an_event_loop_the_tool_validator_answers_at_once(engine: str) -> None:
    validate: Any = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine)
    )
    tool = ToolDefinition(name="t", execute=_ran, parameters={"type": "object"})
    assert validate(tool, {}, None) is None
