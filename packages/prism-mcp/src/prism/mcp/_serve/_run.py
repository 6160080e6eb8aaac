"""Running a served pipeline over stdio or Streamable HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import anyio
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from prism.core.options import check_choice

from ._auth import HookVerifier
from ._connections import connection_cap, guarded_protocol
from ._options import HttpOptions
from ._server import McpToolServer
from ._sessions import BoundedSessionManager, SessionEndpoint

__all__ = ["http_app", "run_http", "run_stdio", "serve_tools"]

_LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
_LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


async def run_stdio(server: McpToolServer) -> None:
    """Serve one client on this process's stdin/stdout (stray prints go to stderr)."""
    async with stdio_server() as (read, write):
        await server.lowlevel.run(read, write, server.initialization_options())


def _security(options: HttpOptions) -> TransportSecuritySettings:
    hosts = [*_LOOPBACK_HOSTS, f"{options.host}:*", *options.allowed_hosts]
    origins = [*_LOOPBACK_ORIGINS, f"http://{options.host}:*", *options.allowed_origins]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _verifier(options: HttpOptions) -> TokenVerifier | None:
    if options.token_verifier is not None:
        return options.token_verifier
    return None if options.authorize is None else HookVerifier(options.authorize)


def http_app(server: McpToolServer, options: HttpOptions) -> Starlette:
    """The ASGI app (Starlette) serving ``server`` with the options' guards: bearer
    authentication (401 with ``WWW-Authenticate: Bearer``), Host/Origin checks, bounded
    sessions."""
    server.lowlevel.list_changed_over_http = not options.stateless  # no channel to announce on
    manager = BoundedSessionManager(
        server.lowlevel,
        options.sessions,
        security_settings=_security(options),
        json_response=options.json_response,
        stateless=options.stateless,
    )
    endpoint: Any = SessionEndpoint(manager)
    routes: list[Route] = []
    middleware: list[Middleware] = []
    verifier = _verifier(options)
    if verifier is not None:
        metadata_url = None
        if options.resource_url is not None:
            resource = AnyHttpUrl(options.resource_url)
            metadata_url = build_resource_metadata_url(resource)
            servers = [AnyHttpUrl(url) for url in options.authorization_servers]
            routes = create_protected_resource_routes(resource, servers)
        endpoint = RequireAuthMiddleware(endpoint, [], metadata_url)
        middleware = [
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
            Middleware(AuthContextMiddleware),
        ]
    return Starlette(
        routes=[Route(options.path, endpoint=endpoint), *routes],
        middleware=middleware,
        lifespan=lambda _: manager.run(),
    )


async def run_http(
    server: McpToolServer,
    options: HttpOptions,
    *,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve over Streamable HTTP with uvicorn until cancelled; ``on_listening`` gets the URL
    once the socket is bound (with the real port when ``options.port`` is 0)."""
    import uvicorn

    cap = connection_cap(options.max_connections)
    config = uvicorn.Config(
        http_app(server, options), host=options.host, port=options.port, log_level="warning",
        lifespan="on", http=guarded_protocol(cap, options.header_timeout_seconds),
        timeout_keep_alive=5,
    )  # fmt: skip
    listener = uvicorn.Server(config)
    if on_listening is None:
        await listener.serve()
        return
    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve)
        while not listener.started:  # uvicorn has no start event; it sets this flag
            await anyio.sleep(0.01)
        host, port = listener.servers[0].sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        on_listening(f"http://{shown}:{port}{options.path}")


async def serve_tools(
    server: McpToolServer,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    http: HttpOptions | None = None,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve until the client leaves (stdio) or the task is cancelled (HTTP, asyncio only).
    HTTP needs ``http`` with authentication (``HttpOptions()`` alone raises, saying so);
    ``on_listening`` (HTTP) is called with the URL once the listener is bound."""
    if transport == "stdio":
        await run_stdio(server)
    elif transport == "http":
        options = http if http is not None else HttpOptions()
        await run_http(server, options, on_listening=on_listening)
    else:
        check_choice("serve_tools.transport", transport, ("stdio", "http"))
