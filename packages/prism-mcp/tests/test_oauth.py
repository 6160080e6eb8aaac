"""OAuth against a real SDK server with its embedded authorization server: authorization code
+ PKCE through host handlers, refresh, host storage, and no credential in results, errors,
events or ledger rows. (The official conformance suite's authorization servers are covered by
test_conformance_suite.py.)"""

from __future__ import annotations

import logging
import math
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import InMemoryRunLedger, ToolCall, ToolGates, ToolRegistry, dispatch_tool_call
from prism.core.testing import scaled
from prism.mcp import (
    InMemoryTokenStorage,
    McpBridgeOptions,
    McpConnectError,
    McpOAuthAuthorizationCode,
    McpOAuthClientCredentials,
    StreamableHttpTransport,
    connect_mcp_tools,
)
from prism.mcp._oauth import SecretBook, redact_text

from .conftest import SERVERS

pytestmark = pytest.mark.anyio

REDIRECT = "http://localhost:3000/callback"


def oauth_server(kit: Any, ttl: int, refreshed_ttl: int | None = None) -> Any:
    """``oauth_server.py``: the SDK's server with its embedded authorization server; access
    tokens live ``ttl`` seconds, refreshed ones ``refreshed_ttl`` (by default ``ttl``)."""
    lives = (ttl,) if refreshed_ttl is None else (ttl, refreshed_ttl)
    return kit.http_script(str(SERVERS / "oauth_server.py"), *map(str, lives))


class Browser:
    """The person signing in: opens the authorization URL, returns where it redirected."""

    def __init__(self, *, answer: str | None = None) -> None:
        self.opened: list[str] = []
        self.location: str | None = None
        self.answer = answer

    async def open(self, url: str) -> None:
        self.opened.append(url)
        async with httpx2.AsyncClient(trust_env=False, follow_redirects=False) as http:
            response = await http.get(url)
        self.location = response.headers.get("location")

    async def back(self) -> str:
        if self.answer is not None:
            return self.answer
        assert self.location is not None
        return self.location


def _code_flow(browser: Browser, storage: InMemoryTokenStorage, **kw: Any) -> Any:
    return McpOAuthAuthorizationCode(
        storage=storage,
        redirect_uri=REDIRECT,
        redirect_handler=browser.open,
        callback_handler=browser.back,
        **kw,
    )


async def _value(kit: Any, bridge: Any, name: str, args: dict[str, Any] | None = None) -> Any:
    result = await kit.call(bridge, name, args or {})
    assert result.error is None, result.error
    return result.value


async def test_authorization_code_with_pkce_refreshes_and_reuses_host_storage(kit) -> None:
    browser, storage = Browser(), InMemoryTokenStorage()
    oauth = _code_flow(browser, storage)
    with anyio.fail_after(scaled(90)):
        # The first token lives a few seconds (waited out below); the refreshed one long enough
        # that the restarted host still finds it live (an expired one sends the SDK back to the
        # browser).
        ttl = math.ceil(scaled(3))
        async with oauth_server(kit, ttl=ttl, refreshed_ttl=600) as url:
            transport = StreamableHttpTransport(url, oauth=oauth)
            async with connect_mcp_tools(
                server_id="secure",
                transport=transport,
                options=McpBridgeOptions(protocol_mode="legacy"),
            ) as bridge:
                first = await _value(kit, bridge, "stats")
                tokens = dict(await storage.load_tokens() or {})
                await anyio.sleep(ttl + 0.5)  # the access token expires
                later = await _value(kit, bridge, "stats")
                refreshed = dict(await storage.load_tokens() or {})
            # a new bridge (a restarted host) finds its tokens in the host's storage
            async with connect_mcp_tools(
                server_id="secure",
                transport=transport,
                options=McpBridgeOptions(protocol_mode="legacy"),
            ) as bridge:
                again = await _value(kit, bridge, "stats")
    (authorize,) = browser.opened
    query = parse_qs(urlsplit(authorize).query)
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) >= 43
    assert query["redirect_uri"] == [REDIRECT] and query["state"][0]
    assert first["authorized"] == 1 and first["refreshed"] == 0
    assert later["refreshed"] >= 1 and refreshed["access_token"] != tokens["access_token"]
    assert again["authorized"] == 1, "the stored tokens were not reused"
    assert (await storage.load_client() or {}).get("client_id")


async def test_no_token_reaches_results_errors_events_or_ledger_rows(kit) -> None:
    storage = InMemoryTokenStorage()
    oauth = _code_flow(Browser(), storage)
    events: list[Any] = []
    ledger = InMemoryRunLedger()
    with anyio.fail_after(scaled(60)):
        async with (
            oauth_server(kit, ttl=600) as url,
            connect_mcp_tools(
                server_id="secure",
                transport=StreamableHttpTransport(url, oauth=oauth),
                options=McpBridgeOptions(protocol_mode="legacy"),
            ) as bridge,
        ):
            registry = ToolRegistry(bridge.tools)
            results = [
                await dispatch_tool_call(
                    ToolCall(id=str(i), name="mcp:secure:leak", arguments=args),
                    registry=registry,
                    emit=events.append,
                    gates=ToolGates(ledger=ledger),
                )
                for i, args in enumerate(({}, {"fail": True}))
            ]
    tokens = await storage.load_tokens()
    assert tokens is not None
    secret = tokens["access_token"]
    shown = repr((results, events, ledger.records, oauth, storage))
    assert secret not in shown and tokens["refresh_token"] not in shown
    assert results[0].value == {"token": "[REDACTED]"}
    assert results[1].error is not None and "[REDACTED]" in results[1].error.message


async def test_a_refused_authorization_fails_to_connect_with_a_clear_error(kit) -> None:
    refused = Browser(answer=f"{REDIRECT}?error=access_denied&state=x")
    with anyio.fail_after(scaled(60)):
        async with oauth_server(kit, ttl=600) as url:
            oauth = _code_flow(refused, InMemoryTokenStorage())
            with pytest.raises(McpConnectError, match="did not grant access \\(access_denied\\)"):
                async with connect_mcp_tools(
                    server_id="secure",
                    transport=StreamableHttpTransport(url, oauth=oauth),
                    options=McpBridgeOptions(protocol_mode="legacy"),
                ):
                    pass


async def test_a_person_who_never_comes_back_is_bounded_by_handler_timeout(kit) -> None:
    class Away(Browser):
        async def back(self) -> str:
            await anyio.sleep_forever()
            raise AssertionError

    with anyio.fail_after(scaled(60)):
        async with oauth_server(kit, ttl=600) as url:
            oauth = _code_flow(Away(), InMemoryTokenStorage(), handler_timeout_seconds=0.5)
            started = anyio.current_time()
            with pytest.raises(McpConnectError):
                async with connect_mcp_tools(
                    server_id="secure",
                    transport=StreamableHttpTransport(url, oauth=oauth),
                    options=McpBridgeOptions(protocol_mode="legacy"),
                ):
                    pass
            assert anyio.current_time() - started < 15


async def test_a_token_endpoint_that_echoes_the_secret_cannot_leak_it_in_errors(
    kit, caplog
) -> None:
    caplog.set_level(logging.DEBUG)  # the bridge demotes the SDK's records to DEBUG
    secret = "client-secret/0123456789+x"  # / and + are URL-encoded in the form body
    with anyio.fail_after(scaled(60)):
        async with kit.http_script(str(SERVERS / "echo_auth_server.py")) as url:
            base = url.removesuffix("/mcp")
            for method in ("client_secret_post", "client_secret_basic"):
                oauth = McpOAuthClientCredentials(
                    storage=InMemoryTokenStorage(),
                    client_id="svc",
                    client_secret=secret,
                    token_endpoint_auth_method=method,
                    issuer=base,
                )
                with pytest.raises(McpConnectError) as caught:
                    async with connect_mcp_tools(
                        server_id="hostile",
                        transport=StreamableHttpTransport(url, oauth=oauth),
                        options=McpBridgeOptions(protocol_mode="legacy"),
                    ):
                        pass
                message = str(caught.value)
                assert "Token exchange failed (400)" in message, message
                assert secret not in message and "[REDACTED]" in message
                if method == "client_secret_basic":  # the echoed header carries it base64'd
                    assert "Basic [REDACTED]" in message
    assert "OAuth flow error" in caplog.text  # the SDK's own log line, redacted
    assert secret not in caplog.text and "Basic Y" not in caplog.text
    assert "Traceback" not in caplog.text


def test_oauth_options_are_validated_and_keep_secrets_out_of_reprs() -> None:
    storage = InMemoryTokenStorage()
    creds = McpOAuthClientCredentials(
        storage=storage, client_id="svc", client_secret="s3cret-value-123"
    )
    assert "s3cret-value-123" not in repr(creds)
    assert redact_text(creds, "bad secret s3cret-value-123!") == "bad secret [REDACTED]!"
    with pytest.raises(ValueError, match="exactly one of client_secret and assertion"):
        McpOAuthClientCredentials(storage=storage, client_id="svc")
    with pytest.raises(TypeError, match=r"^McpOAuthClientCredentials\.storage must be"):
        McpOAuthClientCredentials(storage=object(), client_id="c", client_secret="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="redirect_uri"):
        McpOAuthAuthorizationCode(
            storage=storage,
            redirect_uri="file:///x",
            redirect_handler=Browser().open,
            callback_handler=Browser().back,
        )
    with pytest.raises(ValueError, match="Authorization"):
        StreamableHttpTransport(
            "http://127.0.0.1:1/mcp", headers={"Authorization": "Bearer x"}, oauth=creds
        )
    with pytest.raises(TypeError, match=r"^StreamableHttpTransport\.oauth must be"):
        StreamableHttpTransport("http://127.0.0.1:1/mcp", oauth="token")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    secrets=st.lists(st.text(min_size=8, max_size=40), min_size=1, max_size=5),
    prefix=st.text(max_size=30),
    suffix=st.text(max_size=30),
)
def test_every_remembered_secret_is_redacted_anywhere_in_a_message(
    secrets: list[str], prefix: str, suffix: str
) -> None:
    book = SecretBook()
    book.add_fields({"access_token": secrets[0], "refresh_token": secrets[-1]})
    book.add(*secrets)
    text = prefix + "|".join(secrets) + suffix
    redacted = book.redact(text)
    assert all(s not in redacted for s in secrets)
