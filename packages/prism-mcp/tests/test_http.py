"""Streamable HTTP against a real SDK server on 127.0.0.1: content, both eras, bounds, faults."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import anyio
import pytest

from prism.core import AbortController, ImageContent, TextContent
from prism.core.testing import scaled
from prism.mcp import (
    MCP_ABORTED,
    MCP_CONNECTION_LOST,
    MCP_RESULT_TOO_LARGE,
    MCP_TIMEOUT,
    MCP_TOOL_ERROR,
    McpBridgeOptions,
    McpConnectError,
    StreamableHttpTransport,
    connect_mcp_tools,
)

pytestmark = pytest.mark.anyio

CAP = 1_000_000


def _code(result) -> str | None:
    if result.error is not None:
        assert len(result.error.message.encode()) <= 8192
    return result.error.code if result.error else None


async def test_http_maps_results_and_announces_changes_on_both_eras(kit) -> None:
    with anyio.fail_after(scaled(90)):
        async with kit.http_server() as url:
            for mode, expected in (("legacy", "notification"), ("auto", "listen")):
                async with connect_mcp_tools(
                    server_id="web",
                    transport=StreamableHttpTransport(url, headers={"X-Test": "1"}),
                    options=McpBridgeOptions(protocol_mode=mode, list_cache_ttl_seconds=3600),
                ) as bridge:
                    mixed = await kit.call(bridge, "mixed")
                    point = await kit.call(bridge, "structured", {"x": 3, "y": 4})
                    failed = await kit.call(bridge, "fail")
                    assert await kit.until(lambda b=bridge, e=expected: b.list_changed_mode == e)
                    added = (await kit.call(bridge, "add_tool")).value["result"]
                    assert await kit.until(lambda b=bridge: b.stale)
                    await bridge.refresh()
                    assert f"mcp:web:{added}" in {t.name for t in bridge.tools}
                assert mixed.content[0] == TextContent(text="hello")
                assert isinstance(mixed.content[1], ImageContent)
                assert len(mixed.content) == 6
                assert point.value == {"x": 3, "y": 4}
                assert _code(failed) == MCP_TOOL_ERROR


async def test_http_results_over_the_cap_are_refused_before_buffering(kit, peak_rss) -> None:
    with anyio.fail_after(scaled(90)):
        async with kit.http_server() as url:
            # legacy: the answer is an SSE event; 2026: a JSON body with a Content-Length
            for mode in ("legacy", "auto"):
                async with connect_mcp_tools(
                    server_id="web",
                    transport=StreamableHttpTransport(url),
                    options=McpBridgeOptions(protocol_mode=mode, max_result_bytes=CAP),
                ) as bridge:
                    peak_rss.reset()
                    big = await kit.call(bridge, "huge", {"n_bytes": 20_000_000})
                    grew = peak_rss.growth()
                    small = await kit.call(bridge, "echo", {"text": "still fine"})
                assert _code(big) == MCP_RESULT_TOO_LARGE, mode
                assert "max_result_bytes" in big.error.message, big.error.message
                assert grew < 2 * CAP + 48 * 2**20, f"{mode}: RSS grew {grew >> 20} MiB"
                assert small.value == {"result": "still fine"}


async def test_http_json_server_bodies_are_capped(kit) -> None:
    with anyio.fail_after(scaled(90)):
        async with (
            kit.http_server("--json") as url,
            connect_mcp_tools(
                server_id="web",
                transport=StreamableHttpTransport(url),
                options=McpBridgeOptions(protocol_mode="legacy", max_result_bytes=CAP),
            ) as bridge,
        ):
            big = await kit.call(bridge, "huge", {"n_bytes": 2_000_000})
            small = await kit.call(bridge, "huge", {"n_bytes": 1000})
    assert _code(big) == MCP_RESULT_TOO_LARGE
    assert "max_result_bytes" in big.error.message, big.error.message
    assert small.value == {"result": "x" * 1000}


async def test_http_timeout_and_abort_cancel_the_server_handler(kit) -> None:
    marker = Path(tempfile.mkdtemp()) / "marker"
    with anyio.fail_after(scaled(90)):
        async with (
            kit.http_server() as url,
            connect_mcp_tools(
                server_id="web",
                transport=StreamableHttpTransport(url),
                options=McpBridgeOptions(protocol_mode="legacy", call_timeout_seconds=1.0),
            ) as bridge,
        ):
            timed_out = await kit.call(bridge, "sleep_marked", {"path": str(marker)})
            assert await kit.until(lambda: marker.read_text() == "cancelled")
            controller = AbortController()

            async def abort_soon() -> None:
                await kit.until(lambda: marker.read_text() == "started")
                controller.abort()

            async with anyio.create_task_group() as tg:
                marker.write_text("")
                tg.start_soon(abort_soon)
                aborted = await kit.call(
                    bridge, "sleep_marked", {"path": str(marker)}, signal=controller.signal
                )
            assert await kit.until(lambda: marker.read_text() == "cancelled")
            after = await kit.call(bridge, "echo", {"text": "next"})
    assert _code(timed_out) == MCP_TIMEOUT
    assert _code(aborted) == MCP_ABORTED
    assert after.error is None


async def test_http_server_crash_mid_call_is_a_typed_result(kit) -> None:
    with anyio.fail_after(scaled(90)):
        for mode in ("legacy", "auto"):
            async with (
                kit.http_server() as url,
                connect_mcp_tools(
                    server_id="web",
                    transport=StreamableHttpTransport(url),
                    options=McpBridgeOptions(protocol_mode=mode),
                ) as bridge,
            ):
                crashed = await kit.call(bridge, "crash", {"delay": 0.2})
                after = await kit.call(bridge, "echo", {"text": "x"})
            assert _code(crashed) == MCP_CONNECTION_LOST, mode
            assert _code(after) == MCP_CONNECTION_LOST, mode
            assert "could not connect" in after.error.message


async def test_http_close_with_calls_in_flight(kit) -> None:
    results = []
    with anyio.fail_after(scaled(90)):
        async with (
            kit.http_server() as url,
            connect_mcp_tools(server_id="web", transport=StreamableHttpTransport(url)) as bridge,
        ):

            async def run() -> None:
                path = str(Path(tempfile.mkdtemp()) / "m")
                results.append(await kit.call(bridge, "sleep_marked", {"path": path}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                tg.start_soon(run)
                await anyio.sleep(0.5)
                started = time.monotonic()
                await bridge.close()
            closed_in = time.monotonic() - started
    assert [_code(r) for r in results] == [MCP_CONNECTION_LOST] * 2
    assert closed_in < 5


async def test_http_timeout_arrives_on_time_even_with_a_long_close_grace(kit) -> None:
    """A server whose event loop is frozen answers neither the cancel nor the DELETE."""
    timeout = 1.0
    elapsed = {}
    with anyio.fail_after(scaled(60)):
        async with kit.http_server() as url:
            for mode in ("legacy", "auto"):
                async with connect_mcp_tools(
                    server_id="web",
                    transport=StreamableHttpTransport(url),
                    options=McpBridgeOptions(
                        protocol_mode=mode, call_timeout_seconds=timeout, close_grace_seconds=10
                    ),
                ) as bridge:
                    started = time.monotonic()
                    hung = await kit.call(bridge, "freeze", {"seconds": 3})
                    elapsed[mode] = time.monotonic() - started
                    assert _code(hung) == MCP_TIMEOUT
    # the faulted session closes in the background (bounded); the caller does not wait for it
    assert all(seconds < timeout + 1.5 for seconds in elapsed.values()), elapsed


async def test_http_401_and_403_are_named_in_the_error(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with kit.http_server("--auth", "sesame") as url:
            for headers, expected in (({}, "HTTP 401 Unauthorized"), (_bearer("nope"), "HTTP 403")):
                with pytest.raises(McpConnectError) as caught:
                    async with connect_mcp_tools(
                        server_id="web",
                        transport=StreamableHttpTransport(url, headers=headers),
                        options=McpBridgeOptions(protocol_mode="legacy"),
                    ):
                        raise AssertionError("connected without the right token")
                assert expected in str(caught.value), str(caught.value)
                assert "sesame" not in str(caught.value) and "nope" not in str(caught.value)
            async with connect_mcp_tools(
                server_id="web",
                transport=StreamableHttpTransport(url, headers=_bearer("sesame")),
            ) as bridge:
                assert (await kit.call(bridge, "echo", {"text": "in"})).error is None


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
