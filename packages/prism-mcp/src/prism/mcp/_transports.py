"""Where the server is: ``StdioTransport`` (a subprocess) or ``StreamableHttpTransport`` (a URL)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import attrs

from ._oauth import McpOAuth, McpOAuthAuthorizationCode, McpOAuthClientCredentials

__all__ = ["McpTransport", "StdioTransport", "StreamableHttpTransport"]

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
        raise ValueError(f"{what} must be a str, got {value!r}")
    if "\x00" in value:
        raise ValueError(f"{what} must not contain NUL characters")
    return value


def _args(value: object) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f"args must be a sequence of str, got {value!r}")
    return tuple(_no_nul("each of args", item) for item in value)


def _env(value: object) -> Mapping[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(f"env must be a mapping of str to str, got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or _ENV_NAME.fullmatch(key) is None:
            raise ValueError(f"env names must be non-empty str without '=' or NUL, got {key!r}")
        out[key] = _no_nul(f"env[{key!r}]", item)
    return MappingProxyType(out)


def _cwd(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"cwd must be a str or os.PathLike, got {value!r}")
    return _no_nul("cwd", os.fspath(value) if isinstance(value, os.PathLike) else value)


def _command(value: object) -> str:
    text = _no_nul("command", value)
    if not text:
        raise ValueError("command must not be empty")
    return text


def _env_repr(value: Mapping[str, str] | None) -> str:
    return "None" if value is None else "{" + ", ".join(f"{k!r}: '***'" for k in value) + "}"


@attrs.frozen
class StdioTransport:
    """Run ``command *args`` as a subprocess and speak MCP over its stdin/stdout.

    The child sees only the SDK's safe environment subset (``HOME, LOGNAME, PATH, SHELL, TERM,
    USER``) plus ``env``; it runs in its own process group, which is killed on close.
    """

    command: str = attrs.field(converter=_command)
    args: tuple[str, ...] = attrs.field(default=(), converter=_args)
    env: Mapping[str, str] | None = attrs.field(
        default=None, converter=_env, repr=_env_repr, eq=False
    )
    cwd: str | None = attrs.field(default=None, converter=_cwd)


def _url(value: object) -> str:
    text = _no_nul("url", value)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"url must use http or https, got {parts.scheme or 'no'} scheme")
    if not parts.hostname:
        raise ValueError("url must name a host")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("url must not carry credentials; pass them in headers instead")
    if any(ch in text for ch in "\r\n\t "):
        raise ValueError("url must not contain whitespace")
    return text


def _headers(value: object) -> Mapping[str, str]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise ValueError(f"headers must be a mapping of str to str, got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or _HEADER_NAME.fullmatch(key) is None:
            raise ValueError(f"invalid header name {key!r}")
        if key.lower() in _RESERVED_HEADERS:
            raise ValueError(f"header {key!r} is set by the MCP transport and cannot be configured")
        if not isinstance(item, str) or any(ch in item for ch in "\r\n\x00"):
            raise ValueError(f"header {key!r} must be a str without CR, LF or NUL")
        out[key] = item
    return MappingProxyType(out)


def _headers_repr(value: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k!r}: '***'" for k in value) + "}"


def _check_oauth(_instance: Any, _attribute: Any, value: object) -> None:
    if value is not None and not isinstance(
        value, (McpOAuthAuthorizationCode, McpOAuthClientCredentials)
    ):
        raise ValueError(
            "oauth must be an McpOAuthAuthorizationCode or McpOAuthClientCredentials, "
            f"got {type(value).__name__}"
        )


@attrs.frozen
class StreamableHttpTransport:
    """Speak MCP Streamable HTTP to ``url`` (``http``/``https``, no credentials in the URL).

    ``headers`` (e.g. ``Authorization``) are sent with every request; values never appear in reprs.
    """

    url: str = attrs.field(converter=_url)
    headers: Mapping[str, str] = attrs.field(
        default=None, converter=_headers, repr=_headers_repr, eq=False
    )
    oauth: McpOAuth | None = attrs.field(default=None, validator=_check_oauth, eq=False)
    """OAuth for this server (authorization code + PKCE, or client credentials); see docs."""

    def __attrs_post_init__(self) -> None:
        if self.oauth is not None and any(k.lower() == "authorization" for k in self.headers):
            raise ValueError("headers must not set Authorization when oauth is given")


McpTransport = StdioTransport | StreamableHttpTransport
