"""An operator can act on what went wrong: a server that dies at start shows its exit code and
the last lines of its stderr, and every bound's error names the option that sets it."""

from __future__ import annotations

import sys

import anyio
import pytest

from prism.core.testing import scaled
from prism.mcp import (
    MCP_RESULT_TOO_LARGE,
    McpBridgeOptions,
    McpConnectError,
    StdioTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS, Kit

pytestmark = pytest.mark.anyio

DIES_AT_ONCE = "import sys; print('loading config', file=sys.stderr); " \
    "print('fatal: no API key in $EXAMPLE_KEY', file=sys.stderr); sys.exit(3)"  # fmt: skip
DIES_AFTER_HELLO = "import sys; sys.stdin.readline(); " \
    "print('crashed while answering initialize', file=sys.stderr); sys.exit(4)"  # fmt: skip


async def _connect_error(kit: Kit, *args: str, mode: str = "auto") -> str:
    transport = StdioTransport(sys.executable, args=args, env=kit.env)
    with anyio.fail_after(scaled(60)), pytest.raises(McpConnectError) as caught:
        async with connect_mcp_tools(
            server_id="dies",
            transport=transport,
            options=McpBridgeOptions(protocol_mode=mode, connect_timeout_seconds=scaled(30)),
        ):
            pass
    return str(caught.value)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_server_that_exits_at_start_shows_its_code_and_stderr(kit: Kit, mode: str) -> None:
    message = await _connect_error(kit, "-c", DIES_AT_ONCE, mode=mode)
    assert "exited with code 3" in message, message
    assert "loading config | fatal: no API key in $EXAMPLE_KEY" in message, message


async def test_a_server_that_dies_during_the_handshake_shows_why(kit: Kit) -> None:
    message = await _connect_error(kit, "-c", DIES_AFTER_HELLO)
    assert "exited with code 4" in message, message
    assert "crashed while answering initialize" in message, message


async def test_a_served_prism_process_that_fails_at_start_shows_its_traceback_tail(
    kit: Kit,
) -> None:
    message = await _connect_error(kit, str(SERVERS / "prism_served.py"), "http")
    assert "exited with code 1" in message, message
    assert "IndexError" in message, message  # the last line of its traceback


async def test_a_server_killed_by_a_signal_says_which(kit: Kit) -> None:
    message = await _connect_error(kit, "-c", "import os, signal; os.kill(os.getpid(), 9)")
    assert "killed by signal 9" in message and "(no stderr)" in message, message


async def test_an_oversized_stdio_result_names_max_result_bytes(kit: Kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="s",
            transport=kit.sdk_stdio(),
            options=McpBridgeOptions(max_result_bytes=100_000),
        ) as bridge:
            big = await kit.call(bridge, "huge", {"n_bytes": 1_000_000})
    assert big.error is not None and big.error.code == MCP_RESULT_TOO_LARGE
    assert "max_result_bytes=100000" in big.error.message, big.error.message


def test_a_served_result_over_the_bound_names_the_option() -> None:
    from prism.core import ToolResult
    from prism.mcp._serve._results import to_call_result

    result = ToolResult(tool_call_id="c", name="big", value="x" * 200)
    mapped = to_call_result(result, max_bytes=100, structured_objects_only=True)
    assert mapped.is_error is True
    assert "ServeOptions.max_result_bytes" in mapped.content[0].text  # type: ignore[union-attr]
