"""Where the server is: ``StdioTransport`` (a subprocess), ``StreamableHttpTransport`` (a URL)
or ``InMemoryTransport`` (a server object in this process)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from types import MappingProxyType
from urllib.parse import urlsplit

from ._memory import InMemoryTransport
from ._oauth import McpOAuth, McpOAuthAuthorizationCode, McpOAuthClientCredentials

__all__ = ["InMemoryTransport", "McpTransport", "StdioTransport", "StreamableHttpTransport"]

_ENV_NAME = re.compile(r"[^=\x00]+")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_RESERVED_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "connection",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        "transfer-encoding",
    }
)


def _no_nul(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got a {type(value).__name__} (not shown)")
    if "\x00" in value:
        raise ValueError(f"{what} must be a str without NUL, got one with NUL (not shown)")
    return value


def _str_mapping(
    where: str, value: object, key_ok: Callable[[object], str | None], *, line: bool = False
) -> Mapping[str, str]:
    """A read-only copy of ``value`` once ``key_ok`` (a problem or ``None``) passes every key;
    values are str without NUL (and, for a ``line``, without CR or LF)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{where} must be a mapping of str to str, got a {type(value).__name__}")
    out: dict[str, str] = {}
    for key, item in value.items():
        problem = key_ok(key)
        if problem is not None:
            error = ValueError if isinstance(key, str) else TypeError
            raise error(f"{where} must be a mapping whose {problem}, got the key {key!r:.200}")
        out[key] = _no_nul(f"{where}[{key!r}]", item)
        if line and ("\r" in item or "\n" in item):
            raise ValueError(
                f"{where}[{key!r}] must be a str without CR, LF or NUL, got one with CR or LF "
                "(not shown)"
            )
    return MappingProxyType(out)


def _env_key(key: object) -> str | None:
    if isinstance(key, str) and _ENV_NAME.fullmatch(key) is not None:
        return None
    return "names are non-empty str without '=' or NUL"


def _cwd(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"StdioTransport.cwd must be a str or os.PathLike, got {value!r:.200}")
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    return _no_nul("StdioTransport.cwd", text)


@dataclass(frozen=True, slots=True)
class StdioTransport:
    """Run ``command *args`` as a subprocess and speak MCP over its stdin/stdout.

    The child sees only the SDK's safe environment subset (``HOME, LOGNAME, PATH, SHELL, TERM,
    USER``) plus ``env``; it runs in its own process group, which is killed on close.
    """

    command: str
    _: KW_ONLY
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = field(default=None, compare=False)
    cwd: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        command = _no_nul("StdioTransport.command", self.command)
        if not command:
            raise ValueError("StdioTransport.command must be a non-empty str, got ''")
        args = self.args
        if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
            raise TypeError(f"StdioTransport.args must be a sequence of str, got {args!r:.200}")
        object.__setattr__(
            self, "args", tuple(_no_nul(f"StdioTransport.args[{i}]", a) for i, a in enumerate(args))
        )
        if self.env is not None:
            env = _str_mapping("StdioTransport.env", self.env, _env_key)
            object.__setattr__(self, "env", env)
        object.__setattr__(self, "cwd", _cwd(self.cwd))

    def __repr__(self) -> str:
        return (
            f"StdioTransport(command={self.command!r}, args={self.args!r}, "
            f"env={_masked(self.env)}, cwd={self.cwd!r})"
        )


def _url(value: object) -> str:
    text = _no_nul("StreamableHttpTransport.url", value)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ValueError(
            "StreamableHttpTransport.url must be an http or https URL, got the scheme "
            f"{parts.scheme!r}"
        )
    if not parts.hostname:
        raise ValueError("StreamableHttpTransport.url must be a URL naming a host, got no host")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError(
            "StreamableHttpTransport.url must be a URL without credentials (pass them in headers), "
            "got one with credentials (not shown)"
        )
    if any(ch in text for ch in "\r\n\t "):
        raise ValueError(
            "StreamableHttpTransport.url must be a URL without whitespace, got one with whitespace"
        )
    return text


def _header_key(key: object) -> str | None:
    if not isinstance(key, str) or _HEADER_NAME.fullmatch(key) is None:
        return "names are valid header names"
    if key.lower() in _RESERVED_HEADERS:
        return "names are not set by the MCP transport itself"
    return None


def _masked(value: Mapping[str, str] | None) -> str:
    return "None" if value is None else "{" + ", ".join(f"{k!r}: '***'" for k in value) + "}"


@dataclass(frozen=True, slots=True)
class StreamableHttpTransport:
    """Speak MCP Streamable HTTP to ``url`` (``http``/``https``, no credentials in the URL).

    ``headers`` (e.g. ``Authorization``) are sent with every request; values never appear in reprs.
    """

    url: str
    _: KW_ONLY
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    oauth: McpOAuth | None = field(default=None, compare=False)
    """OAuth for this server (authorization code + PKCE, or client credentials); see docs."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", _url(self.url))
        given: object = self.headers
        headers = _str_mapping(
            "StreamableHttpTransport.headers",
            {} if given is None else given,
            _header_key,
            line=True,
        )
        object.__setattr__(self, "headers", headers)
        oauth = self.oauth
        if oauth is not None and not isinstance(
            oauth, (McpOAuthAuthorizationCode, McpOAuthClientCredentials)
        ):
            raise TypeError(
                "StreamableHttpTransport.oauth must be an McpOAuthAuthorizationCode or "
                f"McpOAuthClientCredentials, got a {type(oauth).__name__} (not shown)"
            )
        if oauth is not None and any(k.lower() == "authorization" for k in headers):
            raise ValueError(
                "StreamableHttpTransport.headers must be free of Authorization when oauth is "
                "given, "
                "got an Authorization header (not shown)"
            )

    def __repr__(self) -> str:
        return (
            f"StreamableHttpTransport(url={self.url!r}, headers={_masked(self.headers)}, "
            f"oauth={self.oauth!r})"
        )


McpTransport = StdioTransport | StreamableHttpTransport | InMemoryTransport
