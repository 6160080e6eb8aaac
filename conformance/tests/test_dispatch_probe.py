"""assert_tool_dispatch_conforms: passes for a sound host setup, names every broken gate."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import anyio
import pytest

from prism.conformance import assert_tool_dispatch_conforms
from prism.core import (
    JsonObject,
    PermissionRequest,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    ToolResult,
    create_static_permission_policy,
    dispatch_tool_call,
)
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio

RAN: list[JsonObject] = []


async def search(args: JsonObject, ctx: ToolExecutionContext) -> str:
    RAN.append(args)
    return f"found {args['query']}"


def sync_count(args: JsonObject, ctx: ToolExecutionContext) -> str:
    RAN.append(args)
    return "counted"


def registry() -> Any:
    return ToolRegistry(
        [
            ToolDefinition(name="search", execute=search),
            ToolDefinition(name="count", execute=sync_count),
        ]
    )


def needs_query(tool: ToolDefinition, args: JsonObject, ctx: ToolExecutionContext) -> str | None:
    return None if isinstance(args.get("query"), str) else "query: must be a string"


async def test_a_sound_host_setup_conforms() -> None:
    RAN.clear()
    with anyio.fail_after(scaled(10)):
        probes = await assert_tool_dispatch_conforms(
            registry(),
            tool="search",
            valid_args={"query": "prism"},
            gates=ToolGates(
                permission=create_static_permission_policy(allow=["tool:*:execute"]),
                validator=needs_query,
                tool_filter=ToolFilter(allow=["search", "count"]),
            ),
            invalid_args={"query": 42},
        )
    assert probes[0] == "unknown tool"
    assert probes[-1] == "success path"
    assert "a denying permission policy" in probes
    assert "a rejecting validator" in probes
    assert RAN == [{"query": "prism"}]  # only the success path ran the real handler


async def test_sync_handlers_are_probed_too() -> None:
    RAN.clear()
    with anyio.fail_after(scaled(10)):
        await assert_tool_dispatch_conforms(registry(), tool="count", valid_args={})
    assert RAN == [{}]


def test_usable_without_pytest_via_asyncio_run() -> None:
    asyncio.run(assert_tool_dispatch_conforms(registry(), tool="count", valid_args={}))


async def filter_blind(call: ToolCall, **options: Any) -> ToolResult:
    gates = dataclasses.replace(options.pop("gates"), tool_filter=None)
    return await dispatch_tool_call(call, gates=gates, **options)


async def loose_arguments(call: ToolCall, **options: Any) -> ToolResult:
    clean = {k: v for k, v in call.arguments.items() if k not in ("__proto__", "constructor")}
    return await dispatch_tool_call(dataclasses.replace(call, arguments=clean), **options)


async def test_a_dispatcher_that_skips_the_filter_is_reported() -> None:
    with anyio.fail_after(scaled(10)), pytest.raises(AssertionError) as info:
        await assert_tool_dispatch_conforms(
            registry(), tool="search", valid_args={"query": "x"}, dispatch=filter_blind
        )
    assert "tool denied by a filter: expected blocked 'tool_denied'" in str(info.value)


async def test_every_failing_probe_is_listed() -> None:
    with anyio.fail_after(scaled(10)), pytest.raises(AssertionError) as info:
        await assert_tool_dispatch_conforms(
            registry(), tool="search", valid_args={"query": "x"}, dispatch=loose_arguments
        )
    message = str(info.value)
    assert "does not conform (2 problem(s))" in message
    assert "`__proto__` in the arguments" in message
    assert "`constructor.prototype` in the arguments" in message


async def test_a_validator_that_accepts_invalid_args_is_reported() -> None:
    def accept_all(tool: Any, args: JsonObject, ctx: Any) -> None:
        return None

    with anyio.fail_after(scaled(10)), pytest.raises(AssertionError) as info:
        await assert_tool_dispatch_conforms(
            registry(),
            tool="search",
            valid_args={"query": "x"},
            gates=ToolGates(validator=accept_all),
            invalid_args={"query": 42},
        )
    assert "invalid_args against the host validator" in str(info.value)


async def test_a_host_policy_that_denies_the_tool_fails_the_success_path() -> None:
    class DenySearch:
        def check(self, request: PermissionRequest) -> bool:
            return request.target != "search"

    with anyio.fail_after(scaled(10)), pytest.raises(AssertionError) as info:
        await assert_tool_dispatch_conforms(
            registry(),
            tool="search",
            valid_args={"query": "x"},
            gates=ToolGates(permission=DenySearch()),
        )
    assert "success path: valid_args must run the handler once" in str(info.value)


async def test_a_missing_tool_is_reported() -> None:
    with pytest.raises(AssertionError, match="the registry has no tool named 'nope'"):
        await assert_tool_dispatch_conforms(registry(), tool="nope", valid_args={})
