"""A stdio server that hangs, crashes, floods or lies: typed error results, never a hang."""

from __future__ import annotations

import sys
import threading
import time

import anyio
import pytest

from prism.core import AbortController, TextContent
from prism.core.testing import abort_after, scaled
from prism.mcp import (
    MCP_ABORTED,
    MCP_CONNECTION_LOST,
    MCP_PROTOCOL_ERROR,
    MCP_RESULT_TOO_LARGE,
    MCP_TIMEOUT,
    McpBridgeOptions,
    McpConnectError,
    StdioTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS

pytestmark = pytest.mark.anyio

CAP = 1_000_000


def _code(result) -> str | None:
    assert len(result.error.message.encode()) <= 8192 if result.error else True
    return result.error.code if result.error else None


async def _pgid(kit, bridge) -> int:
    r = await kit.call(bridge, "pid")
    assert r.value, r
    return int(r.value["pgid"])


async def test_a_timeout_kills_the_server_and_the_next_call_reconnects(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(call_timeout_seconds=0.5),
        ) as bridge:
            first = await _pgid(kit, bridge)
            started = time.monotonic()
            result = await kit.call(bridge, "sleep", {"seconds": 30})
            assert time.monotonic() - started < scaled(3)
            assert _code(result) == MCP_TIMEOUT
            assert "call_timeout_seconds=0.5" in result.error.message
            assert await kit.group_gone(first)
            second = await _pgid(kit, bridge)
    assert second != first


async def test_a_timeout_ends_sibling_calls_with_connection_lost(kit) -> None:
    results = {}
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(call_timeout_seconds=1.0),
        ) as bridge:

            async def run(name: str, seconds: float) -> None:
                results[name] = await kit.call(bridge, "sleep", {"seconds": seconds})

            async with anyio.create_task_group() as tg:
                tg.start_soon(run, "slow", 30)
                await anyio.sleep(0.5)
                tg.start_soon(run, "sibling", 30)
    assert _code(results["slow"]) == MCP_TIMEOUT
    assert _code(results["sibling"]) == MCP_CONNECTION_LOST
    assert "failed (mcp_timeout)" in results["sibling"].error.message


async def test_200_mb_without_a_newline_keeps_client_memory_bounded(kit, peak_rss) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile("huge-line"),
            options=McpBridgeOptions(max_result_bytes=CAP),
        ) as bridge:
            first = await _pgid(kit, bridge)
            peak_rss.reset()
            result = await kit.call(bridge, "echo", {"text": "x"})
            grew = peak_rss.growth()
            assert _code(result) == MCP_RESULT_TOO_LARGE
            assert f"max_result_bytes={CAP}" in result.error.message
            assert await kit.group_gone(first)
            assert (await kit.call(bridge, "pid")).error is None
    assert grew < 2 * CAP + 32 * 2**20, f"client peak RSS grew {grew >> 20} MiB"


async def test_an_oversized_message_with_the_id_last_fails_its_call(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile("id-last", "--size", "3000000"),
            options=McpBridgeOptions(max_result_bytes=CAP),
        ) as bridge:
            result = await kit.call(bridge, "echo", {"text": "x"})
    assert _code(result) == MCP_RESULT_TOO_LARGE


@pytest.mark.parametrize(
    ("mode", "code"),
    [("deep-json", MCP_RESULT_TOO_LARGE), ("wide-json", MCP_RESULT_TOO_LARGE)],
)
async def test_json_that_would_explode_in_memory_is_refused(kit, peak_rss, mode, code) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(mode, "--size", "900000"),
            options=McpBridgeOptions(max_result_bytes=CAP),
        ) as bridge:
            peak_rss.reset()
            result = await kit.call(bridge, "echo", {"text": "x"})
            grew = peak_rss.growth()
            assert (await kit.call(bridge, "pid")).error is None
    assert _code(result) == code
    assert grew < 2 * CAP + 32 * 2**20


async def test_invalid_utf8_is_a_protocol_error_and_the_connection_survives(kit) -> None:
    with anyio.fail_after(scaled(30)):
        transport = kit.hostile("invalid-utf8")
        async with connect_mcp_tools(server_id="h", transport=transport) as bridge:
            first = await _pgid(kit, bridge)
            result = await kit.call(bridge, "echo", {"text": "x"})
            assert await _pgid(kit, bridge) == first
    assert _code(result) == MCP_PROTOCOL_ERROR


async def test_garbage_and_floods_do_not_hide_the_real_answer(kit, peak_rss) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(server_id="g", transport=kit.hostile("garbage")) as garbage:
            result = await kit.call(garbage, "echo", {"text": "real"})
        assert result.content == (TextContent(text="real"),)
        async with connect_mcp_tools(
            server_id="f", transport=kit.hostile("flood", "--size", "1000000")
        ) as flood:
            peak_rss.reset()
            flooded = await kit.call(flood, "echo", {"text": "x"})
            grew = peak_rss.growth()
            again = await kit.call(flood, "pid")
    assert flooded.error is None
    assert again.error is None
    assert grew < 32 * 2**20


async def test_a_server_that_never_answers_times_out(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile("hang"),
            options=McpBridgeOptions(call_timeout_seconds=0.5),
        ) as bridge:
            result = await kit.call(bridge, "echo", {"text": "x"})
    assert _code(result) == MCP_TIMEOUT


async def test_a_crash_mid_call_is_a_lost_connection_then_a_fresh_one(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            first = await _pgid(kit, bridge)
            crashed = await kit.call(bridge, "crash")
            after = await _pgid(kit, bridge)
    assert _code(crashed) == MCP_CONNECTION_LOST
    assert "exited with code 3" in crashed.error.message
    assert after != first


async def test_close_with_calls_in_flight_ends_them_promptly(kit) -> None:
    results = []
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            pgid = await _pgid(kit, bridge)

            async def run() -> None:
                results.append(await kit.call(bridge, "sleep", {"seconds": 30}))

            async with anyio.create_task_group() as tg:
                for _ in range(3):
                    tg.start_soon(run)
                await anyio.sleep(0.3)
                started = time.monotonic()
                await bridge.close()
            closed_in = time.monotonic() - started
            late = await kit.call(bridge, "echo", {"text": "x"})
    assert [_code(r) for r in results] == [MCP_CONNECTION_LOST] * 3
    assert "closed during the call" in results[0].error.message
    assert closed_in < 3
    assert await kit.group_gone(pgid)
    assert _code(late) == MCP_CONNECTION_LOST


async def test_an_already_aborted_call_sends_nothing_and_keeps_the_connection(kit) -> None:
    controller = AbortController()
    controller.abort("user pressed stop")
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            first = await _pgid(kit, bridge)
            calls_before = (await kit.call(bridge, "stats")).value["calls"]
            never_sent = await kit.call(bridge, "echo", {"text": "x"}, signal=controller.signal)
            calls_after = (await kit.call(bridge, "stats")).value["calls"]
            assert await _pgid(kit, bridge) == first
    assert _code(never_sent) == MCP_ABORTED
    assert calls_after == calls_before + 1  # only the stats call itself


async def test_an_abort_during_the_call_interrupts_it(kit) -> None:
    controller = AbortController()
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            async with anyio.create_task_group() as tg:
                tg.start_soon(abort_after, controller, 0.3)
                started = time.monotonic()
                result = await kit.call(bridge, "sleep", {"seconds": 30}, signal=controller.signal)
            elapsed = time.monotonic() - started
            echo = await kit.call(bridge, "echo", {"text": "after"})
    assert _code(result) == MCP_ABORTED
    assert elapsed < scaled(2)
    assert echo.error is None


async def test_host_cancellation_propagates(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            with anyio.move_on_after(0.3) as scope:
                await kit.call(bridge, "sleep", {"seconds": 30})
            assert scope.cancelled_caught
            assert (await kit.call(bridge, "echo", {"text": "x"})).error is None


@pytest.mark.parametrize("policy", ["close", "keep"])
async def test_the_fault_policy_decides_what_happens_after_a_timeout(kit, policy: str) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile(),
            options=McpBridgeOptions(
                call_timeout_seconds=0.5, on_call_fault=policy, list_cache_ttl_seconds=0.01
            ),
        ) as bridge:
            first = bridge.server_pid
            timed_out = await kit.call(bridge, "sleep", {"seconds": 30})
            after = await kit.call(bridge, "pid")
            if policy == "close":
                with pytest.raises(McpConnectError, match="on_call_fault='close'"):
                    await bridge.refresh()
    assert _code(timed_out) == MCP_TIMEOUT
    if policy == "close":
        assert _code(after) == MCP_CONNECTION_LOST
        assert "on_call_fault='close'" in after.error.message
    else:
        assert after.value["pgid"] == first


async def test_progress_reaches_the_context(kit) -> None:
    seen: list[tuple[float | None, str | None]] = []

    async def progress(fraction: float | None, message: str | None) -> None:
        seen.append((fraction, message))

    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            tool = kit.tool(bridge, "progress")
            result = await tool.execute({"steps": 2}, kit.context(progress=progress))
            await anyio.sleep(0.1)
    assert result.error is None
    assert (1.0, "2") in seen


@pytest.mark.parametrize(
    ("command", "args", "match"),
    [
        ("/nonexistent/mcp-server", (), "No such file"),
        (sys.executable, ("-c", "import sys; sys.exit(3)"), "could not connect"),
    ],
)
async def test_connect_failures_raise_a_connect_error(kit, command, args, match) -> None:
    with anyio.fail_after(scaled(30)), pytest.raises(McpConnectError, match=match):
        async with connect_mcp_tools(
            server_id="x", transport=StdioTransport(command, args=args, env=kit.env)
        ):
            pass


async def test_a_silent_server_fails_the_connect_in_time(kit) -> None:
    silent = StdioTransport(sys.executable, args=("-c", "import time; time.sleep(60)"), env=kit.env)
    started = time.monotonic()
    with (
        anyio.fail_after(scaled(30)),
        pytest.raises(McpConnectError, match=r"connect_timeout_seconds=0\.5"),
    ):
        async with connect_mcp_tools(
            server_id="x",
            transport=silent,
            options=McpBridgeOptions(connect_timeout_seconds=0.5, close_grace_seconds=0.1),
        ):
            pass
    assert time.monotonic() - started < scaled(5)


async def test_an_abort_from_another_thread_interrupts_the_call(kit) -> None:
    controller = AbortController()
    timer = threading.Timer(0.3, controller.abort, args=("from a worker thread",))
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            timer.start()
            started = time.monotonic()
            result = await kit.call(bridge, "sleep", {"seconds": 30}, signal=controller.signal)
            elapsed = time.monotonic() - started
    timer.join()
    assert _code(result) == MCP_ABORTED
    assert elapsed < scaled(2)


async def test_a_server_flooding_stderr_still_answers_and_only_a_tail_is_kept(kit) -> None:
    transport = StdioTransport(
        sys.executable, args=(str(SERVERS / "stderr_flood.py"),), env=kit.env
    )
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="f", transport=transport) as bridge:
            for i in range(10):
                assert (await kit.call(bridge, "echo", {"text": str(i)})).value == {
                    "result": str(i)
                }
            conn = await bridge.connection()
            assert conn.proc is not None
            tail = conn.proc.stderr_tail(10_000)
            assert tail.startswith("e") and 0 < len(tail) <= 8_192
