"""Arguments too large to decode in well under a millisecond are decoded in a worker thread,
and a container that cannot fit ``max_argument_bytes`` is refused before it is copied."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_call,
)
from prism.core._arguments import LOOP_NODES, cannot_fit, canonical_json_object
from prism.core.testing import longest_loop_gap, scaled


def test_a_list_that_cannot_fit_is_refused_before_it_is_copied() -> None:
    start = time.process_time()
    arguments, why = canonical_json_object({"x": [0] * 600_000}, 1_048_576)
    assert arguments is None
    assert why == "encoded arguments exceed 1048576 bytes"
    assert time.process_time() - start < scaled(0.01)


def test_more_members_than_the_loop_budget_asks_for_the_worker() -> None:
    value = {"x": list(range(LOOP_NODES))}
    assert canonical_json_object(value, 1_048_576, LOOP_NODES) == (None, None)
    assert canonical_json_object(value, 1_048_576) == (value, None)


@pytest.mark.anyio
async def test_large_arguments_reach_the_handler_intact_and_the_loop_keeps_running() -> None:
    seen: list[Any] = []

    async def handler(args: Any, context: ToolExecutionContext) -> str:
        seen.append(args)
        return "ok"

    registry = ToolRegistry([ToolDefinition(name="t", execute=handler)])
    tree: Any = 0
    for _ in range(15):
        tree = [tree, [tree]]
    call = ToolCall(id="1", name="t", arguments={"x": tree})
    with anyio.fail_after(scaled(60)):
        result, gap = await longest_loop_gap(lambda: dispatch_tool_call(call, registry=registry))
    assert result.error is None
    assert seen == [{"x": tree}]
    assert gap < scaled(0.05), f"heartbeat gap {gap * 1000:.0f} ms"


def test_a_shared_object_dag_is_refused_without_a_copy() -> None:
    node: list[Any] = [0]
    for _ in range(40):
        node = [node, node]
    assert cannot_fit({"x": node}, 1_048_576)
    assert not cannot_fit({"x": [0] * 1000, "y": "é" * 1000}, 1_048_576)
