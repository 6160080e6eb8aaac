"""Running a served pipeline over stdio or Streamable HTTP."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Literal

import anyio

from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from ._options import Authorize, HttpOptions
from ._server import McpToolServer

__all__ = ["http_app", "run_http", "run_stdio", "serve_tools"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]

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


def _bearer(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == b"authorization":
            text = value.decode("latin-1")
            return text[7:] if text[:7].lower() == "bearer " else None
    return None


def _guard(app: Asgi, authorize: Authorize) -> Asgi:
    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            try:
                allowed = authorize(_bearer(scope))
                if inspect.isawaitable(allowed):
                    allowed = await allowed
            except Exception:
                allowed = False
            if allowed is not True:
                body = json.dumps({"error": "unauthorized"}).encode()
                headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


def http_app(server: McpToolServer, options: HttpOptions) -> Asgi:
    """The ASGI app (Starlette) serving ``server`` with the options' guards."""
    server.lowlevel.list_changed_over_http = not options.stateless  # no channel to announce on
    app: Asgi = server.lowlevel.streamable_http_app(
        streamable_http_path=options.path,
        json_response=options.json_response,
        stateless_http=options.stateless,
        transport_security=_security(options),
        host=options.host,
    )
    return app if options.authorize is None else _guard(app, options.authorize)


async def run_http(
    server: McpToolServer,
    options: HttpOptions,
    *,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve over Streamable HTTP with uvicorn until cancelled; ``on_listening`` gets the URL
    once the socket is bound (with the real port when ``options.port`` is 0)."""
    import uvicorn

    config = uvicorn.Config(
        http_app(server, options), host=options.host, port=options.port, log_level="warning",
        lifespan="on",
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

    ``on_listening`` (HTTP) is called with the URL once the listener is bound."""
    if transport == "stdio":
        await run_stdio(server)
    elif transport == "http":
        options = http if http is not None else HttpOptions()
        await run_http(server, options, on_listening=on_listening)
    else:
        raise ValueError(f"transport: expected 'stdio' or 'http', got {transport!r}")
