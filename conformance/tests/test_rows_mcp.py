"""The prism-mcp rows fail, precisely, against broken bridges."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from prism.conformance import ConformanceSubjects, run_row

mcp = pytest.importorskip("prism.mcp", reason="prism-mcp is not installed")

BACKENDS = ["asyncio", "trio"]
ROWS = ["8", "9", "10", "E8", "E9"]


def real() -> ConformanceSubjects:
    return ConformanceSubjects(
        mcp_connect=mcp.connect_mcp_tools,
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=mcp.StdioTransport,
    )


def expect_failure(row: str, subjects: ConformanceSubjects, backend: str, phrase: str) -> None:
    result = run_row(row, subjects, backend=backend, timeout_seconds=60)
    assert result.status == "failed", f"row {row} should fail, got {result.status}"
    assert result.message is not None
    assert phrase in result.message, f"{phrase!r} not in {result.message!r}"


# The rows pass against the real subjects once per session, in
# packages/prism-mcp/tests/test_conformance.py;
# this module proves each row can fail.


def test_rows_skip_without_an_mcp_bridge() -> None:
    result = run_row("9", ConformanceSubjects(), backend="asyncio", timeout_seconds=10)
    assert result.status == "skipped"
    assert "MCP bridge" in (result.message or "")


def _connect_with(**forced: Any) -> Any:
    """``connect_mcp_tools`` with some options forced, whatever the row asks for."""

    def connect(*, options: Any = None, **given: Any) -> Any:
        forced_options = dataclasses.replace(options or mcp.McpBridgeOptions(), **forced)
        return mcp.connect_mcp_tools(**given, options=forced_options)

    return connect


class _Proxy:
    """Forwards everything to a real bridge; subclasses break one behaviour."""

    def __init__(self, bridge: Any) -> None:
        self._bridge = bridge

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bridge, name)


class _NeverStale(_Proxy):
    stale = False

    async def refresh(self) -> Any:
        return self._bridge.tools


class _RaisesOnErrors(_Proxy):
    @property
    def tools(self) -> tuple[Any, ...]:

        def wrap(tool: Any) -> Any:
            async def execute(arguments: Any, context: Any) -> Any:
                result = await tool.execute(arguments, context)
                if result.is_error:
                    raise RuntimeError(result.error.message)
                return result

            return dataclasses.replace(tool, execute=execute)

        return tuple(wrap(t) for t in self._bridge.tools)


def _proxied(proxy: type[_Proxy]) -> Any:
    @contextlib.asynccontextmanager
    async def connect(**options: Any) -> AsyncIterator[Any]:
        async with mcp.connect_mcp_tools(**options) as bridge:
            yield proxy(bridge)

    return connect


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_8_fails_without_namespaces(backend: str) -> None:
    broken = ConformanceSubjects(
        mcp_connect=_connect_with(name_prefix=""),
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=mcp.StdioTransport,
    )
    expect_failure("8", broken, backend, "bridge has no tool 'mcp:alpha:search'")


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_9_fails_when_a_faulted_connection_is_kept(backend: str) -> None:
    broken = ConformanceSubjects(
        mcp_connect=_connect_with(on_call_fault="keep"),
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=mcp.StdioTransport,
    )
    expect_failure("9", broken, backend, "after an oversize result process group")


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_10_fails_when_notifications_are_ignored(backend: str) -> None:
    broken = ConformanceSubjects(
        mcp_connect=_proxied(_NeverStale),
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=mcp.StdioTransport,
    )
    expect_failure("10", broken, backend, "did not mark the bridge stale")


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_e8_fails_when_hostile_output_raises(backend: str) -> None:
    broken = ConformanceSubjects(
        mcp_connect=_proxied(_RaisesOnErrors),
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=mcp.StdioTransport,
    )
    result = run_row("E8", broken, backend=backend, timeout_seconds=60)
    assert result.status == "failed"
    assert "RuntimeError" in (result.message or "")


def _leaky_stdio(command: str, args: Any = (), env: Any = None, cwd: Any = None) -> Any:
    return mcp.StdioTransport(command, args=args, env={**os.environ, **(env or {})}, cwd=cwd)


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_e9_fails_when_the_parent_environment_leaks(backend: str) -> None:
    broken = ConformanceSubjects(
        mcp_connect=mcp.connect_mcp_tools,
        mcp_bridge_options=mcp.McpBridgeOptions,
        mcp_stdio_transport=_leaky_stdio,
    )
    expect_failure("E9", broken, backend, "a parent secret variable reached the server")
