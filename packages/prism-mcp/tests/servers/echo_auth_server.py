"""A hostile protected MCP endpoint: its authorization server refuses every token request and
echoes the request body (client secret included) in the error. Run: ``python … PORT``."""

from __future__ import annotations

import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

PORT = int(sys.argv[2])  # argv: http PORT
BASE = f"http://127.0.0.1:{PORT}"


async def mcp(_request: Request) -> Response:
    challenge = f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
    return PlainTextResponse("unauthorized", 401, headers={"WWW-Authenticate": challenge})


async def resource(_request: Request) -> Response:
    return JSONResponse({"resource": f"{BASE}/mcp", "authorization_servers": [BASE]})


async def metadata(_request: Request) -> Response:
    return JSONResponse(
        {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
        }
    )


async def token(request: Request) -> Response:
    body = (await request.body()).decode()
    auth = request.headers.get("authorization", "")
    return JSONResponse({"error": "invalid_client", "error_description": f"{body} {auth}"}, 400)


app = Starlette(
    routes=[
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/.well-known/oauth-protected-resource/mcp", resource),
        Route("/.well-known/oauth-authorization-server", metadata),
        Route("/token", token, methods=["POST"]),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
