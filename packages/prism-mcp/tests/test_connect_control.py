"""The host controls connecting: abort it, cancel it, force a re-list; importing costs no SDK."""

from __future__ import annotations

import subprocess
import sys
import time

import anyio
import pytest

from prism.core import AbortController
from prism.core.testing import abort_after, scaled
from prism.mcp import McpBridgeOptions, McpConnectError, StdioTransport, connect_mcp_tools

pytestmark = pytest.mark.anyio


def _silent(kit) -> StdioTransport:
    """A process that never answers the handshake."""
    return StdioTransport(sys.executable, args=("-c", "import time; time.sleep(60)"), env=kit.env)


async def test_an_abort_signal_ends_a_connect_at_once_and_leaves_no_process(kit) -> None:
    controller = AbortController()
    with anyio.fail_after(scaled(20)):
        async with anyio.create_task_group() as tg:
            tg.start_soon(abort_after, controller, 0.5)
            started = time.monotonic()
            with pytest.raises(McpConnectError, match="aborted"):
                async with connect_mcp_tools(
                    server_id="slow",
                    transport=_silent(kit),
                    options=McpBridgeOptions(protocol_mode="legacy"),
                    signal=controller.signal,
                ):
                    raise AssertionError("connected to a server that never answers")
            assert time.monotonic() - started < scaled(4)
    assert await kit.until(lambda: not kit.processes_with(kit.token), 3)


async def test_an_already_aborted_signal_connects_nothing(kit) -> None:
    controller = AbortController()
    controller.abort()
    with anyio.fail_after(scaled(10)), pytest.raises(McpConnectError, match="aborted"):
        async with connect_mcp_tools(
            server_id="x", transport=kit.hostile(), signal=controller.signal
        ):
            raise AssertionError("connected after an abort")


async def test_cancelling_the_enclosing_scope_ends_a_connect(kit) -> None:
    started = time.monotonic()
    with anyio.fail_after(scaled(20)):
        with anyio.move_on_after(0.5) as scope:
            async with connect_mcp_tools(
                server_id="slow",
                transport=_silent(kit),
                options=McpBridgeOptions(protocol_mode="legacy"),
            ):
                raise AssertionError("connected to a server that never answers")
    assert scope.cancelled_caught
    assert time.monotonic() - started < scaled(4)
    assert await kit.until(lambda: not kit.processes_with(kit.token), 3)


async def test_refresh_force_always_lists_again(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(list_cache_ttl_seconds=3600),
        ) as bridge:
            assert bridge.list_requests == 1
            await bridge.refresh()
            assert bridge.list_requests == 1  # fresh: nothing sent
            tools = await bridge.refresh(force=True)
            assert bridge.list_requests == 2
            assert not bridge.stale
            assert {t.name for t in tools} == {t.name for t in bridge.tools}


def test_importing_the_package_does_not_load_the_sdk() -> None:
    code = (
        "import sys, prism.mcp\n"
        "heavy = ('mcp', 'mcp_types', 'httpx2', 'pydantic', 'pydantic_core', 'opentelemetry')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
        "prism.mcp.McpToolBridge\n"
        "print('mcp' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split("\n")
    assert out[0] == "[]", out[0]
    assert out[1] == "True"
