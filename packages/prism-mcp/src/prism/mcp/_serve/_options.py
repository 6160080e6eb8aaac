"""Options of a served pipeline: identity, per-call bounds, and the HTTP listener's guards."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TypeAlias, final

from mcp.server.auth.provider import TokenVerifier
from prism.core.options import (
    GIB,
    MIB,
    check_callable,
    check_count,
    check_flag,
    check_instance,
    check_seconds,
)

__all__ = ["Authorize", "HttpOptions", "ServeOptions", "SessionLimits"]

Authorize: TypeAlias = Callable[[str], "bool | Awaitable[bool]"]
"""Given the bearer token of an HTTP request, whether to serve it (no token: refused first)."""


@functools.cache
def installed_version() -> str:
    """The installed prism-mcp's version (its distribution metadata), ``"0"`` without one."""
    try:
        return version("prism-mcp")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "0"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ServeOptions:
    """What every served call shares. ``call_timeout_seconds=None`` means no deadline."""

    name: str = "prism"
    version: str = field(default_factory=installed_version)
    """What the client sees as the server's version; default: the installed prism-mcp's."""
    instructions: str | None = None
    call_timeout_seconds: float | None = None
    max_result_bytes: int = 10 * 1024 * 1024
    session_id: str = ""

    def __post_init__(self) -> None:
        for name in ("name", "version"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                error = ValueError if isinstance(value, str) else TypeError
                raise error(f"ServeOptions.{name} must be a non-empty str, got {value!r:.200}")
        check_instance("ServeOptions.instructions", self.instructions, str, optional=True)
        check_instance("ServeOptions.session_id", self.session_id, str)
        check_count("ServeOptions.max_result_bytes", self.max_result_bytes, cap=1 * GIB)
        if self.call_timeout_seconds is not None:
            where = "ServeOptions.call_timeout_seconds"
            seconds = check_seconds(where, self.call_timeout_seconds, cap=86_400.0)
            object.__setattr__(self, "call_timeout_seconds", seconds)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionLimits:
    """Bounds of stateful HTTP sessions. At ``max_sessions`` the session idle the longest is
    closed to admit a new one (refused with 503 only when every session is busy); a session
    idle for ``idle_seconds`` is closed; one session holds at most ``max_requests_per_session``
    requests in flight (429 beyond), each body at most ``max_request_bytes`` (413 beyond).
    Each credential is guaranteed ``credential_share`` sessions (``None``: half of
    ``max_sessions``, at least 1): at the cap, a new client whose credential holds fewer
    first takes the slot of a credential holding more, even from a busy session."""

    max_sessions: int = 64
    idle_seconds: float = 600.0
    max_requests_per_session: int = 16
    max_request_bytes: int = 4 * MIB
    credential_share: int | None = None

    def __post_init__(self) -> None:
        check_count("SessionLimits.max_sessions", self.max_sessions, cap=100_000)
        seconds = check_seconds("SessionLimits.idle_seconds", self.idle_seconds, cap=86_400.0)
        object.__setattr__(self, "idle_seconds", seconds)
        check_count(
            "SessionLimits.max_requests_per_session", self.max_requests_per_session, cap=10_000
        )
        check_count(
            "SessionLimits.max_request_bytes", self.max_request_bytes, cap=1 * GIB, minimum=1024
        )
        if self.credential_share is not None:
            where = "SessionLimits.credential_share"
            check_count(where, self.credential_share, cap=self.max_sessions)

    @property
    def share(self) -> int:
        """The sessions one credential is guaranteed."""
        share = self.credential_share
        return share if share is not None else max(1, self.max_sessions // 2)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class HttpOptions:
    """The Streamable HTTP listener: loopback by default, ``Host``/``Origin`` checked
    (DNS-rebinding protection), bounded sessions, and authentication required: a
    ``token_verifier`` (``BearerTokens``, or the SDK's OAuth resource-server verifier) or an
    ``authorize`` hook, unless ``allow_unauthenticated=True`` says anyone who can connect
    may call the tools."""

    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    authorize: Authorize | None = None
    token_verifier: TokenVerifier | None = None
    allow_unauthenticated: bool = False
    resource_url: str | None = None
    """This server's URL as an OAuth protected resource: publishes RFC 9728 metadata naming
    ``authorization_servers`` and points 401 challenges at it (needs a ``token_verifier``)."""
    authorization_servers: tuple[str, ...] = ()
    sessions: SessionLimits = SessionLimits()
    json_response: bool = False
    stateless: bool = False
    max_connections: int = 1000
    """Open TCP connections at most (lowered to fit the descriptor limit); past it, the oldest
    connection with no request in progress is closed to admit a new one."""
    header_timeout_seconds: float = 10.0
    """A connection that has not sent a complete request header by then is closed."""

    def __post_init__(self) -> None:
        check_instance("HttpOptions.host", self.host, str)
        if not self.host:
            raise ValueError("HttpOptions.host must be a non-empty str, got ''")
        check_count("HttpOptions.port", self.port, cap=65_535, minimum=0)
        check_instance("HttpOptions.path", self.path, str)
        if not self.path.startswith("/"):
            raise ValueError(f"HttpOptions.path must be an absolute URL path, got {self.path!r}")
        for field_name in ("allowed_hosts", "allowed_origins", "authorization_servers"):
            _check_strings(f"HttpOptions.{field_name}", getattr(self, field_name))
        check_callable("HttpOptions.authorize", self.authorize, optional=True)
        check_instance("HttpOptions.resource_url", self.resource_url, str, optional=True)
        _check_auth(self)
        check_instance("HttpOptions.sessions", self.sessions, SessionLimits)
        check_flag("HttpOptions.json_response", self.json_response)
        check_flag("HttpOptions.stateless", self.stateless)
        check_count("HttpOptions.max_connections", self.max_connections, cap=100_000, minimum=8)
        seconds = check_seconds(
            "HttpOptions.header_timeout_seconds", self.header_timeout_seconds, cap=3600.0
        )
        object.__setattr__(self, "header_timeout_seconds", seconds)


def _check_strings(where: str, value: object) -> None:
    """A tuple (or list) of non-empty strings: ``TypeError`` for another type, else
    ``ValueError`` for an empty string."""
    rule = "a tuple of non-empty strings"
    if not isinstance(value, tuple | list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{where} must be {rule}, got {value!r:.200}")
    if not all(value):
        raise ValueError(f"{where} must be {rule}, got {value!r:.200}")


def _check_auth(options: HttpOptions) -> None:
    """Exactly one way to authenticate, or an explicit ``allow_unauthenticated``."""
    check_flag("HttpOptions.allow_unauthenticated", options.allow_unauthenticated)
    verifier = options.token_verifier
    if verifier is not None and not callable(getattr(verifier, "verify_token", None)):
        raise TypeError(
            "HttpOptions.token_verifier must be a TokenVerifier (an async verify_token(token)) "
            f"or None, got {verifier!r:.200}"
        )
    ways = (options.authorize is not None) + (verifier is not None)
    if ways > 1:
        raise ValueError(
            "HttpOptions.authorize must be None when token_verifier is given (one, not both), "
            f"got {options.authorize!r:.200}"
        )
    if ways and options.allow_unauthenticated:
        raise ValueError(
            "HttpOptions.allow_unauthenticated must be False when auth is given (True "
            "contradicts the given auth), got True"
        )
    if options.resource_url is not None:
        if verifier is None or not options.authorization_servers:
            raise ValueError(
                "HttpOptions.resource_url must be None unless it can come with a token_verifier "
                f"and authorization_servers, got {options.resource_url!r:.200}"
            )
        servers = [("authorization_servers", server) for server in options.authorization_servers]
        for name, url in [("resource_url", options.resource_url), *servers]:
            if not url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
                raise ValueError(
                    f"HttpOptions.{name} must be https URLs (or loopback http), got {url!r:.200}"
                )
    if not ways and not options.allow_unauthenticated:
        raise ValueError(
            "HttpOptions.token_verifier must be set for authentication "
            "(token_verifier=BearerTokens([...]) or authorize=...), or allow_unauthenticated=True "
            "to let anyone who can connect call the tools, got None"
        )
