"""The stdio child sees only the safe environment plus ``env``; its whole group dies on close."""

from __future__ import annotations

import os
import time

import anyio
import pytest

from prism.core.testing import scaled
from prism.mcp import McpBridgeOptions, connect_mcp_tools

pytestmark = pytest.mark.anyio

SAFE = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LC_CTYPE"}


async def test_only_the_safe_subset_and_configured_env_reach_the_server(kit, monkeypatch) -> None:
    monkeypatch.setenv("PRISM_PARENT_SECRET", "do-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak-either")
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h", transport=kit.hostile(env={"API_KEY": "given"})
        ) as bridge:
            env = (await kit.call(bridge, "env")).value["env"]
    assert env["API_KEY"] == "given"
    assert "do-not-leak" not in str(env)
    assert set(env) - {"API_KEY", "PRISM_MCP_TEST_TOKEN"} <= SAFE
    assert env.get("PATH") == os.environ.get("PATH")


async def test_a_grandchild_does_not_survive_a_clean_close(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="h", transport=kit.hostile()) as bridge:
            pgid = (await kit.call(bridge, "pid")).value["pgid"]
            grandchild = (await kit.call(bridge, "spawn_grandchild")).value["pid"]
            assert kit.alive(grandchild)
            assert len(kit.group_members(pgid)) == 2
    # close returns only once the group is gone: no polling needed
    assert kit.group_members(pgid) == []
    assert not kit.alive(grandchild)


async def test_a_server_that_ignores_eof_and_sigterm_is_killed(kit) -> None:
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(
            server_id="h",
            transport=kit.hostile("stubborn"),
            options=McpBridgeOptions(close_grace_seconds=0.2),
        ) as bridge:
            pgid = (await kit.call(bridge, "pid")).value["pgid"]
            await kit.until(lambda: len(kit.group_members(pgid)) == 2)
            started = time.monotonic()
        closed_in = time.monotonic() - started
    assert kit.group_members(pgid) == []
    assert closed_in < 3


async def test_the_sdk_server_and_its_grandchild_are_gone_after_close(kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(server_id="sdk", transport=kit.sdk_stdio()) as bridge:
            pid = (await kit.call(bridge, "pid")).value["result"]
            grandchild = (await kit.call(bridge, "spawn_grandchild")).value["result"]
            assert bridge.server_pid == pid
    assert not kit.alive(pid)
    assert not kit.alive(grandchild)
