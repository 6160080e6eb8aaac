"""The served HTTP listener's guards: authentication required by default, bearer tokens checked
in constant time, token files only the user can read, and bounded sessions (a flood of
abandoned sessions never locks a fresh client out). Real server processes; both backends."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import TextContent, ToolPipeline, ToolRegistry
from prism.core.testing import scaled
from prism.mcp import McpBridgeOptions, StreamableHttpTransport, connect_mcp_tools
from prism.mcp.server import (
    APPROVE_SCOPE,
    BearerTokens,
    HttpOptions,
    McpToolServer,
    SessionLimits,
    http_app,
    read_token_file,
    remove_token_file,
    write_token_file,
)

from .conftest import SERVERS, Kit

pytestmark = pytest.mark.anyio

SERVED = str(SERVERS / "prism_served.py")
TOKEN = "guard-token-0123456789abcdef"
ACCEPTS = {"Accept": "application/json, text/event-stream"}
AUTH = {**ACCEPTS, "Authorization": f"Bearer {TOKEN}"}


def rpc(method: str, ident: int | None = 1, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return message


INITIALIZE = rpc(
    "initialize",
    protocolVersion="2025-11-25",
    capabilities={},
    clientInfo={"name": "raw", "version": "0"},
)


def test_http_needs_authentication_or_an_explicit_opt_out() -> None:
    with pytest.raises(
        ValueError,
        match=r"token_verifier must be set for authentication.*allow_unauthenticated=True",
    ):
        HttpOptions()
    with pytest.raises(ValueError, match="not both"):
        HttpOptions(authorize=lambda t: True, token_verifier=BearerTokens([TOKEN]))
    with pytest.raises(ValueError, match="contradicts"):
        HttpOptions(token_verifier=BearerTokens([TOKEN]), allow_unauthenticated=True)
    assert HttpOptions(allow_unauthenticated=True).authorize is None


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("max_sessions", 0, "SessionLimits.max_sessions must be an int from 1"),
        ("idle_seconds", float("inf"), "SessionLimits.idle_seconds must be a finite number"),
        ("max_requests_per_session", True, "SessionLimits.max_requests_per_session must be"),
        ("max_request_bytes", 10, "SessionLimits.max_request_bytes must be an int from 1,024"),
    ],
)
def test_session_limits_are_validated(field: str, value: object, rule: str) -> None:
    with pytest.raises(TypeError if value is True else ValueError, match=rule):
        SessionLimits(**{field: value})


async def test_bearer_tokens_admit_only_their_own_and_mark_approvers() -> None:
    tokens = BearerTokens([TOKEN], approver_tokens=["approver-token-abcdef012345"])
    caller = await tokens.verify_token(TOKEN)
    approver = await tokens.verify_token("approver-token-abcdef012345")
    assert caller is not None and APPROVE_SCOPE not in caller.scopes
    assert approver is not None and APPROVE_SCOPE in approver.scopes
    assert caller.client_id != approver.client_id  # one's sessions are not the other's
    for wrong in ("", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), "\udcff"):
        assert await tokens.verify_token(wrong) is None
    with pytest.raises(ValueError, match=r"BearerTokens\.tokens must be printable strings of 16"):
        BearerTokens(["short"])
    with pytest.raises(
        TypeError,
        match=r"^BearerTokens\.tokens must be a sequence of strings, got one \(not shown\)$",
    ):
        BearerTokens(TOKEN)
    with pytest.raises(TypeError, match=r"BearerTokens\.tokens must be printable strings"):
        BearerTokens([b"0123456789abcdef0123"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="approver_tokens must be different from tokens"):
        BearerTokens([TOKEN], approver_tokens=[TOKEN])


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(max_size=64))
def test_no_other_string_passes_for_the_token(candidate: str) -> None:
    tokens = BearerTokens([TOKEN])
    admitted = anyio.run(tokens.verify_token, candidate)
    assert (admitted is not None) is (candidate == TOKEN)


def test_token_files_are_private_and_checked(tmp_path: Path) -> None:
    path = write_token_file(TOKEN, str(tmp_path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    assert read_token_file(path) == TOKEN
    os.chmod(path, 0o640)
    with pytest.raises(ValueError, match=f"{path}.*mode 0640.*chmod 600"):
        read_token_file(path)
    remove_token_file(path)
    assert not os.path.exists(os.path.dirname(path))
    with pytest.raises(ValueError, match=r"token file .*missing.*No such file"):
        read_token_file(str(tmp_path / "missing"))


@contextlib.asynccontextmanager
async def guarded(kit: Kit, sessions: str = "64,16") -> AsyncIterator[str]:
    env = {"PRISM_SERVED_SESSIONS": sessions}
    async with kit.http_script(SERVED, TOKEN, env=env) as url:
        yield url


async def test_requests_without_the_token_get_401_with_a_bearer_challenge(kit: Kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with guarded(kit) as url, httpx2.AsyncClient() as raw:
            answers = [
                await raw.post(url, json=INITIALIZE, headers=headers)
                for headers in (ACCEPTS, {**ACCEPTS, "Authorization": "Bearer wrong-token"},
                                {**ACCEPTS, "Authorization": f"Basic {TOKEN}"})
            ]  # fmt: skip
            http = StreamableHttpTransport(url, headers={"Authorization": f"Bearer {TOKEN}"})
            async with connect_mcp_tools(
                server_id="p", transport=http, options=McpBridgeOptions(name_prefix="")
            ) as bridge:
                result = await kit.call(bridge, "echo", {"text": "through"})
    for answer in answers:
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert result.error is None and result.content == (TextContent(text="through"),)


async def open_session(raw: httpx2.AsyncClient, url: str) -> httpx2.Response:
    return await raw.post(url, json=INITIALIZE, headers=AUTH)


async def test_abandoned_sessions_never_lock_out_a_fresh_client(kit: Kit) -> None:
    with anyio.fail_after(scaled(120)):
        async with guarded(kit, "4,16") as url, httpx2.AsyncClient() as raw:
            statuses = [(await open_session(raw, url)).status_code for _ in range(40)]
            first = await raw.post(url, json=INITIALIZE, headers=AUTH)
            http = StreamableHttpTransport(url, headers={"Authorization": f"Bearer {TOKEN}"})
            async with connect_mcp_tools(
                server_id="p", transport=http, options=McpBridgeOptions(name_prefix="")
            ) as bridge:
                result = await kit.call(bridge, "echo", {"text": "fresh"})
    assert statuses == [200] * 40
    assert first.status_code == 200
    assert result.error is None and result.content == (TextContent(text="fresh"),)


async def ping(raw: httpx2.AsyncClient, url: str, session: str) -> int:
    headers = {**AUTH, "mcp-session-id": session}
    return (await raw.post(url, json=rpc("ping", 40), headers=headers)).status_code


async def test_at_the_cap_the_session_idle_the_longest_is_the_one_closed(kit: Kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with guarded(kit, "2,16") as url, httpx2.AsyncClient() as raw:
            first = await initialized(raw, url)
            second = await initialized(raw, url)
            assert await ping(raw, url, first) == 200  # first is now the more recently used
            third = await initialized(raw, url)
            statuses = [await ping(raw, url, s) for s in (first, second, third)]
    assert statuses == [200, 404, 200]


async def test_an_idle_session_is_closed_after_idle_seconds(kit: Kit) -> None:
    with anyio.fail_after(scaled(60)):
        async with guarded(kit, "4,16,0.5") as url, httpx2.AsyncClient() as raw:
            session = await initialized(raw, url)
            alive = await ping(raw, url, session)
            await anyio.sleep(0.5 + scaled(1))  # the timer under test, not synchronisation
            expired = await ping(raw, url, session)
    assert (alive, expired) == (200, 404)


async def hold_a_call(raw: httpx2.AsyncClient, url: str, session: str, ident: int) -> None:
    """A ``hang`` call held in flight until the test's task group is cancelled (sent again
    while the session refuses it because a probe was in flight at that moment)."""
    headers = {**AUTH, "mcp-session-id": session}
    body = rpc("tools/call", ident, name="hang", arguments={})
    while True:
        async with raw.stream("POST", url, json=body, headers=headers) as response:
            if response.status_code != 429:
                async for _ in response.aiter_bytes():
                    pass
                return
        await anyio.sleep(0.01)


async def initialized(raw: httpx2.AsyncClient, url: str) -> str:
    answer = await open_session(raw, url)
    session = answer.headers["mcp-session-id"]
    headers = {**AUTH, "mcp-session-id": session}
    await raw.post(url, json=rpc("notifications/initialized", None), headers=headers)
    return str(session)


async def poll(raw: httpx2.AsyncClient, url: str, body: Any, headers: Any, status: int) -> bool:
    """Send ``body`` until it is answered with ``status`` (the held calls may still be on
    their way to the server)."""
    with anyio.move_on_after(scaled(20)):
        while (await raw.post(url, json=body, headers=headers)).status_code != status:
            await anyio.sleep(0.05)
        return True
    return False


async def test_a_session_holds_a_bounded_number_of_requests_in_flight(kit: Kit) -> None:
    timeout = httpx2.Timeout(scaled(60))
    with anyio.fail_after(scaled(90)):
        async with guarded(kit, "4,2") as url, httpx2.AsyncClient(timeout=timeout) as raw:
            session = await initialized(raw, url)
            headers = {**AUTH, "mcp-session-id": session}
            async with anyio.create_task_group() as group:
                group.start_soon(hold_a_call, raw, url, session, 10)
                group.start_soon(hold_a_call, raw, url, session, 11)
                refused = await poll(raw, url, rpc("ping", 12), headers, 429)
                other = await initialized(raw, url)
                ping = await raw.post(
                    url, json=rpc("ping", 13), headers={**AUTH, "mcp-session-id": other}
                )
                group.cancel_scope.cancel()
    assert refused
    assert ping.status_code == 200


async def test_when_every_session_is_busy_a_new_one_is_refused_not_a_busy_one_evicted(
    kit: Kit,
) -> None:
    timeout = httpx2.Timeout(scaled(60))
    with anyio.fail_after(scaled(90)):
        async with guarded(kit, "2,1") as url, httpx2.AsyncClient(timeout=timeout) as raw:
            busy = [await initialized(raw, url) for _ in range(2)]
            async with anyio.create_task_group() as group:
                for ident, session in enumerate(busy):
                    group.start_soon(hold_a_call, raw, url, session, 20 + ident)
                # One request in flight per session: a 429 shows the held call has arrived.
                arrived = [
                    await poll(raw, url, rpc("ping", 30), {**AUTH, "mcp-session-id": s}, 429)
                    for s in busy
                ]
                refused = await raw.post(url, json=INITIALIZE, headers=AUTH)
                still = [
                    await raw.post(url, json=rpc("ping", 31), headers={**AUTH, "mcp-session-id": s})
                    for s in busy
                ]
                group.cancel_scope.cancel()
    assert arrived == [True, True]
    assert refused.status_code == 503
    assert [p.status_code for p in still] == [429, 429]  # busy, not evicted (that would be 404)


async def test_an_oauth_resource_server_publishes_metadata_and_points_401s_at_it() -> None:
    server = McpToolServer(ToolPipeline(registry=ToolRegistry([])))
    options = HttpOptions(
        token_verifier=BearerTokens([TOKEN]),
        resource_url="https://mcp.example.com/mcp",
        authorization_servers=("https://auth.example.com",),
    )
    app = http_app(server, options)
    transport = httpx2.ASGITransport(app=app)
    with anyio.fail_after(scaled(30)):
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            denied = await client.post("/mcp", json=INITIALIZE, headers=ACCEPTS)
            metadata = await client.get("/.well-known/oauth-protected-resource/mcp")
    assert denied.status_code == 401
    challenge = denied.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert (
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'
        in (challenge)
    )
    assert metadata.status_code == 200
    body = metadata.json()
    assert body["resource"] == "https://mcp.example.com/mcp"
    assert body["authorization_servers"] == ["https://auth.example.com/"]


def test_resource_metadata_needs_a_verifier_and_authorization_servers() -> None:
    with pytest.raises(
        ValueError, match="resource_url must be None unless it can come with a token_verifier"
    ):
        HttpOptions(allow_unauthenticated=True, resource_url="https://mcp.example.com/mcp")
    with pytest.raises(
        ValueError, match="resource_url must be None unless it can come with a token_verifier"
    ):
        HttpOptions(token_verifier=BearerTokens([TOKEN]), resource_url="https://x.example/mcp")
    with pytest.raises(ValueError, match="must be https URLs"):
        HttpOptions(
            token_verifier=BearerTokens([TOKEN]),
            resource_url="http://mcp.example.com/mcp",
            authorization_servers=("https://auth.example.com",),
        )
