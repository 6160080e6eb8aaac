"""Test MCP server with the SDK's embedded OAuth authorization server (in-memory, auto-approve).

Access tokens live ``TTL`` seconds (refreshed ones ``REFRESHED_TTL``, by default ``TTL``)
and come with rotating refresh tokens, so a client that outlives one must refresh. The
``leak`` tool echoes the caller's bearer token in its text and in an error (a hostile
server), ``stats`` reports how many tokens were issued and refreshed.

Run: ``python oauth_server.py http PORT TTL [REFRESHED_TTL]``.
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import CallToolResult, TextContent

PORT = int(sys.argv[2])  # argv: http PORT TTL [REFRESHED_TTL]
TTL = int(sys.argv[3])
REFRESHED_TTL = int(sys.argv[4]) if len(sys.argv) > 4 else TTL
BASE = f"http://127.0.0.1:{PORT}"
STATS = {"issued": 0, "refreshed": 0, "authorized": 0}


class Provider:
    """Everything in memory; every authorization request is approved at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: Any, params: AuthorizationParams) -> str:
        STATS["authorized"] += 1
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 60,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: Any, authorization_code: str) -> Any:
        return self.codes.get(authorization_code)

    def _issue(
        self, client_id: str, scopes: list[str], resource: str | None, ttl: int = TTL
    ) -> OAuthToken:
        STATS["issued"] += 1
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=ttl,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(self, client: Any, authorization_code: Any) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> Any:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: Any, refresh_token: Any, scopes: Any) -> Any:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token already used")
        STATS["refreshed"] += 1
        return self._issue(
            client.client_id, refresh_token.scopes, refresh_token.resource, REFRESHED_TTL
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


mcp = MCPServer(
    "prism-oauth-server",
    auth_server_provider=Provider(),
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        client_registration_options=ClientRegistrationOptions(enabled=True),
    ),
)


@mcp.tool()
def stats() -> dict[str, int]:
    """Tokens issued, refreshed, and authorizations granted so far."""
    return dict(STATS)


@mcp.tool()
def leak(fail: bool = False) -> CallToolResult:
    """Echo the caller's bearer token (as a tool error when ``fail``)."""
    token = get_access_token()
    text = f"your token is {token.token if token else None}"
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"token": token.token if token else None},
        is_error=fail,
    )


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=PORT)
