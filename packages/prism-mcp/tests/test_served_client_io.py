"""A served tool logs to its client (under ``logging/setLevel``) and asks the client's user
(elicitation): the SDK's client in memory and over HTTP on the handshake protocol, where both
exist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types

from prism.core.testing import scaled

from .conftest import SERVERS, Kit, server_module

pytestmark = [
    pytest.mark.anyio,
    # the client side of logging is deprecated at 2026-07-28; these tests speak 2025-11-25
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

SERVED = str(SERVERS / "prism_served.py")


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def _target(kit: Kit, transport: str, stack: Any) -> Any:
    """The served registry: in this process ("memory", the SDK's in-memory client path) or
    over real HTTP."""
    if transport == "memory":
        return server_module("prism_served").build(Path("/nonexistent")).lowlevel
    return await stack.enter_async_context(kit.http_script(SERVED))


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_tool_logs_reach_the_client_at_its_level(kit: Kit, transport: str) -> None:
    import contextlib

    heard: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        heard.append(params)

    with anyio.fail_after(scaled(60)):
        async with contextlib.AsyncExitStack() as stack:
            target = await _target(kit, transport, stack)
            async with Client(target, mode="legacy", logging_callback=on_log) as client:
                assert client.server_capabilities.logging is not None
                default = await client.call_tool("chatty", {})
                await client.set_logging_level("debug")
                everything = await client.call_tool("chatty", {})
                await client.set_logging_level("error")
                nothing = await client.call_tool("chatty", {})
    assert default.structured_content == {"debug": False, "info": True, "warning": True}
    assert everything.structured_content == {"debug": True, "info": True, "warning": True}
    assert nothing.structured_content == {"debug": False, "info": False, "warning": False}
    assert [(p.level, p.data, p.logger) for p in heard] == [
        ("info", {"step": "info"}, "chatty"),
        ("warning", {"step": "warning"}, "chatty"),
        ("debug", {"step": "debug"}, "chatty"),
        ("info", {"step": "info"}, "chatty"),
        ("warning", {"step": "warning"}, "chatty"),
    ]


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_tool_asks_the_user_through_the_client(kit: Kit, transport: str) -> None:
    import contextlib

    asked: list[str] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    with anyio.fail_after(scaled(60)):
        async with contextlib.AsyncExitStack() as stack:
            target = await _target(kit, transport, stack)
            async with Client(target, mode="legacy", elicitation_callback=answer) as client:
                greeted = await client.call_tool("ask_name", {})
            async with Client(target, mode="legacy") as client:
                unasked = await client.call_tool("ask_name", {})
    assert _text(greeted) == "hello Ada"
    assert asked == ["What is your name?"]
    assert _text(unasked) == "no one to ask"  # no elicitation capability: nobody is asked


async def test_outside_a_served_call_nothing_is_sent_or_asked() -> None:
    from prism.mcp.server import ask_client, log_to_client

    assert await log_to_client("info", "x") is False
    assert await ask_client("q?", {"type": "object", "properties": {}}) is None
    with pytest.raises(ValueError, match="level must be one of"):
        await log_to_client("loud", "x")  # type: ignore[arg-type]
