"""Batch dispatch: bounded concurrency, call-order results, exclusivity after middleware."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core import (
    MiddlewareRegistry,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    dispatch_tool_calls_in_order,
)
from prism.core._backend import sleep
from prism.core.agent import LoopOptions, resolve_tool_concurrency

pytestmark = pytest.mark.anyio


class Gauge:
    """Measures how many handlers are in flight, from inside the handlers."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.completed: list[str] = []
        self._lock = threading.Lock()

    def tool(self, name: str, exclusive: bool = False) -> ToolDefinition:
        async def execute(args: Any, ctx: ToolExecutionContext) -> str:
            with self._lock:
                self.now += 1
                self.peak = max(self.peak, self.now)
            try:
                await sleep(args["delay"])
            finally:
                with self._lock:
                    self.now -= 1
                    self.completed.append(ctx.tool_call_id)
            return ctx.tool_call_id

        return ToolDefinition(name=name, execute=execute, exclusive=exclusive)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    delays=st.lists(st.sampled_from([0.0, 0.001, 0.003, 0.006]), min_size=1, max_size=12),
    concurrency=st.integers(1, 16),
    exclusive_flags=st.lists(st.booleans(), min_size=12, max_size=12),
)
async def test_in_flight_never_exceeds_limit_and_order_is_kept(
    delays: list[float], concurrency: int, exclusive_flags: list[bool]
) -> None:
    gauge = Gauge()
    calls = []
    tools = []
    for i, delay in enumerate(delays):
        exclusive = exclusive_flags[i] and i % 3 == 0
        tools.append(gauge.tool(f"t{i}", exclusive=exclusive))
        calls.append(ToolCall(id=f"c{i}", name=f"t{i}", arguments={"delay": delay}))
    results = await dispatch_tool_calls_in_order(
        calls, tool_concurrency=concurrency, registry=ToolRegistry(tools)
    )
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    assert [r.content[0].text for r in results] == [c.id for c in calls]  # type: ignore[union-attr]
    limit = 1 if any(t.exclusive for t in tools) else concurrency
    assert gauge.peak <= limit


async def test_results_in_call_order_though_completion_differs() -> None:
    gauge = Gauge()
    delays = [0.06, 0.0, 0.03]
    calls = [ToolCall(id=f"c{i}", name="t", arguments={"delay": d}) for i, d in enumerate(delays)]
    results = await dispatch_tool_calls_in_order(
        calls, tool_concurrency=3, registry=ToolRegistry([gauge.tool("t")])
    )
    assert gauge.completed == ["c1", "c2", "c0"]
    assert [r.tool_call_id for r in results] == ["c0", "c1", "c2"]
    assert gauge.peak == 3


async def test_exclusive_judged_after_middleware_and_only_for_its_turn() -> None:
    gauge = Gauge()
    registry = ToolRegistry([gauge.tool("plain"), gauge.tool("shell", exclusive=True)])
    middleware = MiddlewareRegistry()
    middleware.use(
        "tool_call",
        lambda c: (
            ToolCall(id=c.id, name="shell", arguments=c.arguments) if c.name == "alias" else c
        ),
    )
    turn = [
        ToolCall(id="a", name="plain", arguments={"delay": 0.02}),
        ToolCall(id="b", name="alias", arguments={"delay": 0.02}),
        ToolCall(id="c", name="plain", arguments={"delay": 0.02}),
    ]
    await dispatch_tool_calls_in_order(
        turn, tool_concurrency=3, registry=registry, gates=ToolGates(middleware=middleware)
    )
    assert gauge.peak == 1
    next_turn = [ToolCall(id=i, name="plain", arguments={"delay": 0.02}) for i in "xyz"]
    await dispatch_tool_calls_in_order(next_turn, tool_concurrency=3, registry=registry)
    assert gauge.peak == 3


async def test_permission_denied_call_keeps_its_slot() -> None:
    gauge = Gauge()
    registry = ToolRegistry([gauge.tool("ok"), gauge.tool("secret")])
    calls = [
        ToolCall(id="1", name="ok", arguments={"delay": 0.01}),
        ToolCall(id="2", name="secret", arguments={"delay": 0.0}),
        ToolCall(id="3", name="ok", arguments={"delay": 0.0}),
    ]
    results = await dispatch_tool_calls_in_order(
        calls,
        tool_concurrency=3,
        registry=registry,
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:secret:*"])),
    )
    assert [r.tool_call_id for r in results] == ["1", "2", "3"]
    assert [r.error.code if r.error else None for r in results] == [None, "permission_denied", None]
    assert sorted(gauge.completed) == ["1", "3"]


async def test_empty_batch_and_bad_options() -> None:
    registry = ToolRegistry()
    assert await dispatch_tool_calls_in_order([], registry=registry) == ()
    for bad, error in ((0, ValueError), (65, ValueError), (True, TypeError), (2.0, TypeError)):
        with pytest.raises(error, match="tool_concurrency"):
            await dispatch_tool_calls_in_order([], tool_concurrency=bad, registry=registry)
    for grace in (0, -1.0, float("nan"), float("inf"), 601):
        with pytest.raises(ValueError, match="abort_grace_seconds"):
            await dispatch_tool_calls_in_order([], abort_grace_seconds=grace, registry=registry)
    assert await dispatch_tool_calls_in_order([], tool_concurrency=64, registry=registry) == ()


def test_loop_options_and_resolution() -> None:
    assert resolve_tool_concurrency(None, None) == 1
    assert resolve_tool_concurrency(None, LoopOptions(tool_concurrency=4)) == 4
    assert (
        resolve_tool_concurrency(LoopOptions(tool_concurrency=2), LoopOptions(tool_concurrency=8))
        == 2
    )
    for bad in (0, 65):
        with pytest.raises(ValueError, match=r"LoopOptions\.tool_concurrency"):
            LoopOptions(tool_concurrency=bad)
    for wrong in (True, 1.5, "3"):
        with pytest.raises(TypeError, match=r"LoopOptions\.tool_concurrency"):
            LoopOptions(tool_concurrency=wrong)  # type: ignore[arg-type]
    assert LoopOptions(tool_concurrency=64).tool_concurrency == 64
    assert LoopOptions().strategy == "single_shot"
    with pytest.raises(ValueError, match=r"LoopOptions\.strategy must be one of 'single_shot'"):
        LoopOptions(strategy="react")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"LoopOptions\.strategy"):
        LoopOptions(strategy="single-shot")  # type: ignore[arg-type]  # the 0.1 spelling
