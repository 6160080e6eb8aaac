"""A served registry that changes announces ``notifications/tools/list_changed`` to every live
session, on stdio and HTTP, on every protocol version, and declares ``listChanged`` as sent.

The raw exchanges speak JSON-RPC to ``servers/prism_served.py`` with no SDK client in between:
as JSON lines to a real stdio process, or as messages on the SDK's memory streams to the same
server built in-process; the other clients are Prism's bridge (the SDK ``Client`` underneath)
pinned to each era.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from prism.core.testing import scaled
from prism.mcp import (
    InMemoryTransport,
    McpBridgeOptions,
    StreamableHttpTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS, Kit, server_module

pytestmark = pytest.mark.anyio

SERVED = str(SERVERS / "prism_served.py")
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class RawStdio:
    """JSON-RPC lines to and from a server process, nothing else in between."""

    def __init__(self, process: Any) -> None:
        self.process = process
        self.buffer = b""

    async def send(self, message: dict[str, Any]) -> None:
        await self.process.stdin.send((json.dumps(message) + "\n").encode())

    async def receive(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            self.buffer += await self.process.stdout.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    async def until(self, predicate: Any) -> dict[str, Any]:
        while True:
            message = await self.receive()
            if predicate(message):
                return message

    async def heard(self, predicate: Any) -> bool:
        """Whether a matching message arrives within a short bound."""
        with anyio.move_on_after(scaled(5)):
            await self.until(predicate)
            return True
        return False

    async def handshake(self, version: str) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }})  # fmt: skip
        answer = await self.until(lambda m: m.get("id") == 1)
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    async def call(self, request_id: int, name: str, arguments: dict[str, Any]) -> None:
        params = {"name": name, "arguments": arguments}
        await self.send(
            {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        )


@asynccontextmanager
async def raw_stdio(kit: Kit) -> AsyncIterator[RawStdio]:
    import os
    import subprocess

    process = await anyio.open_process(
        [sys.executable, SERVED, "stdio"],
        env={**os.environ, **kit.env},
        stderr=subprocess.DEVNULL,
    )
    async with process:
        try:
            yield RawStdio(process)
        finally:
            with anyio.CancelScope(shield=True):
                await process.stdin.aclose()
                with anyio.move_on_after(scaled(10)):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()


class RawMemory(RawStdio):
    """JSON-RPC messages to and from an in-process server's memory streams, no client session."""

    def __init__(self, streams: Any) -> None:
        super().__init__(None)
        self.read, self.write = streams

    async def send(self, message: dict[str, Any]) -> None:
        await self.write.send(SessionMessage(jsonrpc_message_adapter.validate_python(message)))

    async def receive(self) -> dict[str, Any]:
        item = await self.read.receive()
        assert isinstance(item, SessionMessage), item
        message: dict[str, Any] = item.message.model_dump(by_alias=True, exclude_none=True)
        return message


@asynccontextmanager
async def raw_memory(tmp_path: Path) -> AsyncIterator[RawStdio]:
    server = server_module("prism_served").build(tmp_path)
    async with (
        create_client_server_memory_streams() as (client, served),
        anyio.create_task_group() as group,
    ):
        group.start_soon(server.lowlevel.run, *served, server.initialization_options())
        yield RawMemory(client)
        group.cancel_scope.cancel()


def _changed(message: dict[str, Any]) -> bool:
    return message.get("method") == "notifications/tools/list_changed"


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_a_raw_client_hears_the_change_without_listing_first(
    version: str, tmp_path: Path
) -> None:
    with anyio.fail_after(scaled(60)):
        async with raw_memory(tmp_path) as raw:
            answer = await raw.handshake(version)
            await raw.call(2, "add_tool", {"name": f"late_{version[:4]}"})
            heard = await raw.heard(_changed)
    assert answer["result"]["capabilities"]["tools"]["listChanged"] is True
    assert heard


async def test_every_live_stdio_session_hears_a_change_made_by_another(kit: Kit) -> None:
    # Two connections to one process are not possible on stdio; the same registry is shared by
    # every session of one HTTP server instead, below. Here: a session that only listed tools,
    # and one that did nothing after the handshake, each hear their own change.
    with anyio.fail_after(scaled(60)):
        async with raw_stdio(kit) as raw:
            await raw.handshake("2025-11-25")
            await raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            await raw.until(lambda m: m.get("id") == 2)
            await raw.call(3, "add_tool", {"name": "one"})
            assert await raw.heard(_changed)
            await raw.call(4, "add_tool", {"name": "two"})
            assert await raw.heard(_changed)


async def _http_capabilities(url: str, version: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }}  # fmt: skip
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as http:
        response = await http.post(url, json=body, headers=headers)
    text = response.text
    payload = text if text.startswith("{") else text.split("data: ", 1)[1].split("\n", 1)[0]
    capabilities: dict[str, Any] = json.loads(payload)["result"]["capabilities"]
    return capabilities


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_http_session_hears_a_change_and_the_capability_says_so(
    kit: Kit, mode: str, tmp_path: Path
) -> None:
    with anyio.fail_after(scaled(90)):
        async with kit.http_script(SERVED) as url:
            capabilities = await _http_capabilities(url, "2025-11-25")
            async with (
                connect_mcp_tools(
                    server_id="a",
                    transport=StreamableHttpTransport(url),
                    options=McpBridgeOptions(protocol_mode=mode, list_cache_ttl_seconds=3600),
                ) as first,
                connect_mcp_tools(
                    server_id="b",
                    transport=StreamableHttpTransport(url),
                    options=McpBridgeOptions(protocol_mode=mode, list_cache_ttl_seconds=3600),
                ) as second,
            ):
                assert await kit.until(lambda: first.list_changed_mode != "ttl", scaled(10))
                assert await kit.until(lambda: second.list_changed_mode != "ttl", scaled(10))
                await kit.call(first, "add_tool", {"name": "shared"})
                assert await kit.until(lambda: first.stale and second.stale, scaled(5))
    assert capabilities["tools"]["listChanged"] is True


async def test_a_legacy_bridge_hears_the_change(kit: Kit, tmp_path: Path) -> None:
    memory = InMemoryTransport(server_module("prism_served").build(tmp_path))
    changed = anyio.Event()
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="p",
            transport=memory,
            options=McpBridgeOptions(
                protocol_mode="legacy",
                list_cache_ttl_seconds=3600,
                on_tools_changed=lambda _: changed.set(),
            ),
        ) as bridge:
            assert bridge.protocol_version == "2025-11-25"
            await kit.call(bridge, "add_tool", {"name": "late"})
            with anyio.fail_after(scaled(5)):
                await changed.wait()
            assert bridge.stale
