"""TTL cache and tools/list_changed: legacy notifications, 2026 listen streams, TTL fallback."""

from __future__ import annotations

import anyio
import pytest

from prism.core.testing import scaled
from prism.mcp import McpBridgeOptions, McpToolBridge, connect_mcp_tools

pytestmark = pytest.mark.anyio


async def _lists(kit, bridge: McpToolBridge) -> int:
    return int((await kit.call(bridge, "stats")).value["list_requests"])


async def test_refresh_within_the_ttl_sends_no_request(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(list_cache_ttl_seconds=3600),
        ) as bridge:
            tools = bridge.tools
            for _ in range(5):
                assert await bridge.refresh() is tools
            assert await _lists(kit, bridge) == 1
            assert bridge.list_requests == 1
            assert not bridge.stale


async def test_refresh_after_the_ttl_lists_again(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(list_cache_ttl_seconds=0.2),
        ) as bridge:
            assert not bridge.stale
            await anyio.sleep(0.3)
            assert bridge.stale
            await bridge.refresh()
            assert not bridge.stale
            assert await _lists(kit, bridge) == 2


async def test_a_legacy_notification_marks_stale_and_calls_back_once(kit) -> None:
    calls: list[str] = []

    async def changed(bridge: McpToolBridge) -> None:
        calls.append(bridge.server_id)

    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(list_cache_ttl_seconds=3600, on_tools_changed=changed),
        ) as bridge:
            assert bridge.list_changed_mode == "notification"
            await kit.call(bridge, "add_tool", {"name": "first"})
            await kit.call(bridge, "add_tool", {"name": "second"})
            assert await kit.until(lambda: bridge.stale and calls)
            assert "mcp:h:first" not in {t.name for t in bridge.tools}
            await bridge.refresh()
            names = {t.name for t in bridge.tools}
            assert {"mcp:h:first", "mcp:h:second"} <= names
            assert await _lists(kit, bridge) == 2
    assert calls == ["h"]  # one call per burst, until the next refresh


async def test_a_raising_callback_does_not_hurt_the_bridge(kit) -> None:
    raised = anyio.Event()

    def broken(bridge: McpToolBridge) -> None:
        raised.set()  # the raise below follows in the same step, before any other task runs
        raise RuntimeError("host bug")

    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(on_tools_changed=broken),
        ) as bridge:
            await kit.call(bridge, "add_tool", {"name": "x"})
            await raised.wait()
            assert bridge.stale
            assert (await kit.call(bridge, "echo", {"text": "ok"})).error is None


@pytest.mark.parametrize(("mode", "expected"), [("legacy", "notification"), ("auto", "listen")])
async def test_sdk_server_announces_changes_on_both_eras(kit, mode: str, expected: str) -> None:
    changed = anyio.Event()
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="sdk",
            transport=kit.sdk_memory(),
            options=McpBridgeOptions(
                protocol_mode=mode,
                list_cache_ttl_seconds=3600,
                on_tools_changed=lambda _: changed.set(),
            ),
        ) as bridge:
            assert await kit.until(lambda: bridge.list_changed_mode == expected)
            assert bridge.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            added = (await kit.call(bridge, "add_tool")).value
            await changed.wait()
            assert bridge.stale
            await bridge.refresh()
    assert added == {"result": "dyn_1"}
    assert "mcp:sdk:dyn_1" in {t.name for t in bridge.tools}


async def test_a_lost_listen_stream_is_opened_again(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="ll",
            transport=kit.lowlevel_memory(listen="flaky"),
            options=McpBridgeOptions(list_cache_ttl_seconds=3600),
        ) as bridge:
            assert bridge.protocol_version == "2026-07-28"

            async def listens() -> int:
                return int((await kit.call(bridge, "stats")).value["listens"])

            with anyio.fail_after(scaled(10)):
                while await listens() < 2:
                    await anyio.sleep(0.05)
            assert bridge.list_changed_mode == "listen"
            assert bridge.stale  # events may have been missed while it was down
            await bridge.refresh()
            assert not bridge.stale
            await kit.call(bridge, "announce")
            assert await kit.until(lambda: bridge.stale)


async def test_a_server_that_cannot_listen_falls_back_to_the_ttl(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="ll",
            transport=kit.lowlevel_memory(listen="reject"),
            options=McpBridgeOptions(list_cache_ttl_seconds=0.5),
        ) as bridge:
            await kit.call(bridge, "stats")
            assert bridge.list_changed_mode == "ttl"
            await kit.call(bridge, "announce")
            await anyio.sleep(0.2)
            assert not bridge.stale  # nobody told us
            assert await kit.until(lambda: bridge.stale, 2.0)  # the TTL did
            await bridge.refresh()
            assert "mcp:ll:new8" in {t.name for t in bridge.tools}
