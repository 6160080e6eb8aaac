#!/usr/bin/env python3
"""A Prism MCP client that the official ``@modelcontextprotocol/conformance`` suite can drive.

The suite starts a test server per scenario and runs this script with the server URL as the
last argument, the scenario name in ``MCP_CONFORMANCE_SCENARIO`` and, for some auth scenarios,
credentials in ``MCP_CONFORMANCE_CONTEXT`` (JSON). Everything goes through ``prism.mcp``'s
public API: ``connect_mcp_tools``, ``StreamableHttpTransport(oauth=...)`` and
``McpClientFeatures``. Exit status 0 means the client did its part; the suite judges the rest.

Usage: mcp-conformance-client.py URL   (see packages/prism-mcp/tests/test_conformance_suite.py)
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

import anyio
import httpx2

from prism.core import AbortController, ToolExecutionContext, create_static_permission_policy
from prism.mcp import (
    ElicitationRequest,
    ElicitationResponse,
    InMemoryTokenStorage,
    McpBridgeOptions,
    McpClientFeatures,
    McpOAuth,
    McpOAuthAuthorizationCode,
    McpOAuthClientCredentials,
    McpToolBridge,
    StreamableHttpTransport,
    connect_mcp_tools,
)

REDIRECT_URI = "http://localhost:3000/callback"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
TOOL_CALLS = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}

log = logging.getLogger("mcp-conformance-client")


def context() -> dict[str, Any]:
    """The scenario's ``MCP_CONFORMANCE_CONTEXT`` (an empty dict when there is none)."""
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    data = json.loads(raw) if raw else {}
    if not isinstance(data, dict):
        raise SystemExit("MCP_CONFORMANCE_CONTEXT is not a JSON object")
    return data


class HeadlessBrowser:
    """Plays the user: opens the authorization URL and hands back where it redirected."""

    def __init__(self) -> None:
        self.location: str | None = None

    async def open(self, url: str) -> None:
        async with httpx2.AsyncClient(trust_env=False, follow_redirects=False) as http:
            response = await http.get(url)
        location = response.headers.get("location")
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            raise RuntimeError(f"the authorization endpoint answered {response.status_code}")
        self.location = location

    async def redirected_to(self) -> str:
        if self.location is None:
            raise RuntimeError("the authorization URL was never opened")
        location, self.location = self.location, None
        return location


def oauth_for(scenario: str) -> McpOAuth | None:
    """The OAuth configuration a host would give for ``scenario`` (None: no auth)."""
    if not scenario.startswith("auth/"):
        return None
    ctx = context()
    if scenario == "auth/client-credentials-basic":
        return McpOAuthClientCredentials(
            storage=InMemoryTokenStorage(),
            client_id=ctx["client_id"],
            client_secret=ctx["client_secret"],
        )
    if scenario == "auth/client-credentials-jwt":
        return McpOAuthClientCredentials(
            storage=InMemoryTokenStorage(),
            client_id=ctx["client_id"],
            assertion=_signed_assertion(ctx),
        )
    client = None
    if ctx.get("client_id"):  # pre-registered client
        secret = ctx.get("client_secret")
        client = {
            "client_id": ctx["client_id"],
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "client_secret_basic" if secret else "none",
            **({"client_secret": secret} if secret else {}),
        }
    browser = HeadlessBrowser()
    return McpOAuthAuthorizationCode(
        storage=InMemoryTokenStorage(client=client),
        redirect_uri=REDIRECT_URI,
        redirect_handler=browser.open,
        callback_handler=browser.redirected_to,
        client_name="prism-conformance-client",
        client_metadata_url=CLIENT_METADATA_URL,
        handler_timeout_seconds=20,
    )


def _signed_assertion(ctx: Mapping[str, Any]) -> Any:
    """A ``private_key_jwt`` assertion signer from the scenario's key (needs PyJWT[crypto])."""
    from mcp.client.auth.extensions.client_credentials import SignedJWTParameters

    params = SignedJWTParameters(
        issuer=ctx["client_id"],
        subject=ctx["client_id"],
        signing_algorithm=ctx.get("signing_algorithm", "ES256"),
        signing_key=ctx["private_key_pem"],
    )
    return params.create_assertion_provider()


async def accept_with_defaults(request: ElicitationRequest) -> ElicitationResponse:
    """Accept a form, filling each field with its schema default (what a form would show)."""
    schema = request.requested_schema or {}
    properties = schema.get("properties", {})
    content = {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and "default" in spec
    }
    return ElicitationResponse(action="accept", content=content)


async def call(bridge: McpToolBridge, remote: str, arguments: dict[str, Any]) -> Any:
    tool = next(t for t in bridge.tools if t.name == bridge.name_prefix + remote)
    ctx = ToolExecutionContext(
        session_id="conformance",
        run_id="conformance",
        tool_call_id="call-1",
        signal=AbortController().signal,
    )
    return await tool.execute(arguments, ctx)


async def run(url: str, scenario: str) -> None:
    features = McpClientFeatures(
        permission=create_static_permission_policy(),
        elicitation=accept_with_defaults,
        timeout_seconds=20,
    )
    transport = StreamableHttpTransport(url, oauth=oauth_for(scenario))
    async with connect_mcp_tools(
        server_id="conformance",
        transport=transport,
        options=McpBridgeOptions(
            client_features=features, connect_timeout_seconds=25, call_timeout_seconds=25
        ),
    ) as bridge:
        log.info("connected: %s, tools %s", bridge.protocol_version, [t.name for t in bridge.tools])
        if scenario in TOOL_CALLS:
            remote, arguments = TOOL_CALLS[scenario]
            result = await call(bridge, remote, arguments)
            if result.error is not None:
                raise SystemExit(f"{remote} failed: {result.error.code}: {result.error.message}")
        elif scenario == "sep-2322-client-request-state":
            for tool in bridge.tools:  # each answers with an input-required result first
                result = await call(bridge, tool.name.removeprefix(bridge.name_prefix), {})
                log.info("%s -> %s", tool.name, result.error or "ok")
        elif scenario == "http-invalid-tool-headers":
            await call(bridge, "valid_tool", {"region": "us-west1"})  # the invalid ones are gone
        elif scenario == "json-schema-2020-12-preservation":
            listed = next(t for t in bridge.tools if t.name.endswith("json_schema_2020_12_tool"))
            await call(bridge, "json_schema_echo", {"schema": listed.parameters})  # as kept
        elif scenario.startswith("auth/") and bridge.tools:
            remote = bridge.tools[0].name.removeprefix(bridge.name_prefix)
            result = await call(bridge, remote, {})  # a tool error is the server's business
            log.info("%s -> %s", remote, result.error or "ok")


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if len(sys.argv) < 2:
        raise SystemExit(f"usage: {sys.argv[0]} SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    anyio.run(run, sys.argv[-1], scenario)


if __name__ == "__main__":
    main()
