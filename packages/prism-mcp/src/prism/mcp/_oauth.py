"""OAuth for Streamable HTTP servers through the SDK's OAuth client providers.

The host keeps the tokens (``McpTokenStorage``, JSON objects) and chooses the grant: an
authorization code with PKCE driven by its own redirect/callback handlers, or client
credentials (a secret or a signed assertion). The SDK does discovery, registration, PKCE and
refresh. Every token, secret and authorization code seen is remembered by ``SecretBook`` so the
bridge can strip them from error messages and results.
"""

from __future__ import annotations

import base64
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import anyio

from prism.core import SecretRedactor
from prism.core.options import check_callable, check_choice, check_seconds

__all__ = [
    "InMemoryTokenStorage",
    "McpOAuth",
    "McpOAuthAuthorizationCode",
    "McpOAuthClientCredentials",
    "McpTokenStorage",
    "SecretBook",
    "build_auth",
    "redact_text",
]

logger = logging.getLogger("prism.mcp")

_MAX_SECRETS = 256
_SECRET_FIELDS = ("access_token", "refresh_token", "client_secret", "id_token")


@runtime_checkable
class McpTokenStorage(Protocol):
    """Where the host keeps one server's OAuth tokens and client registration (JSON objects).

    ``load_*`` return what ``save_*`` stored last (or ``None``); a value that is not a valid
    token/registration is ignored, so the flow authorizes again.
    """

    async def load_tokens(self) -> Mapping[str, Any] | None:
        """The stored token response (``access_token``, ``refresh_token``, …), or ``None``."""
        ...

    async def save_tokens(self, tokens: Mapping[str, Any]) -> None:
        """Store a new token response (after authorization or refresh)."""
        ...

    async def load_client(self) -> Mapping[str, Any] | None:
        """The stored client registration (``client_id``, …), or ``None``."""
        ...

    async def save_client(self, client: Mapping[str, Any]) -> None:
        """Store the client registration (dynamic registration or a metadata-document id)."""
        ...


class InMemoryTokenStorage:
    """Tokens kept in this process only (lost on exit); ``client`` pre-registers a client."""

    def __init__(self, *, client: Mapping[str, Any] | None = None) -> None:
        self._tokens: dict[str, Any] | None = None
        self._client = dict(client) if client is not None else None

    def __repr__(self) -> str:
        return f"InMemoryTokenStorage(tokens={'***' if self._tokens else None})"

    async def load_tokens(self) -> Mapping[str, Any] | None:
        return dict(self._tokens) if self._tokens is not None else None

    async def save_tokens(self, tokens: Mapping[str, Any]) -> None:
        self._tokens = dict(tokens)

    async def load_client(self) -> Mapping[str, Any] | None:
        return dict(self._client) if self._client is not None else None

    async def save_client(self, client: Mapping[str, Any]) -> None:
        self._client = dict(client)


class SecretBook:
    """The credentials one OAuth configuration has seen, and a redactor for them (bounded)."""

    def __init__(self) -> None:
        self._secrets: dict[str, None] = {}
        self._lock = threading.Lock()
        self._redactor = SecretRedactor(())
        _BOOKS.add(self)

    def add(self, *values: object) -> None:
        """Remember non-trivial strings and their URL-encoded forms (as sent in form bodies)."""
        fresh: list[str] = []
        for value in values:
            if isinstance(value, str) and len(value) >= 8:
                fresh += {value, quote(value, safe=""), quote_plus(value)}
        if not fresh:
            return
        with self._lock:
            for value in fresh:
                self._secrets.pop(value, None)
                self._secrets[value] = None
            while len(self._secrets) > _MAX_SECRETS:
                self._secrets.pop(next(iter(self._secrets)))
            self._redactor = SecretRedactor(list(self._secrets))

    def add_fields(self, data: Mapping[str, Any]) -> None:
        """Remember the credential fields of a token response or client registration."""
        self.add(*(data.get(name) for name in _SECRET_FIELDS))
        client_id, secret = data.get("client_id"), data.get("client_secret")
        if isinstance(client_id, str) and isinstance(secret, str) and len(secret) >= 8:
            basic = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"  # RFC 6749 2.3.1
            self.add(base64.b64encode(basic.encode()).decode())

    def redact(self, value: Any) -> Any:
        """``value`` with every remembered secret replaced by ``[REDACTED]``."""
        return self._redactor.redact(value)


_BOOKS: weakref.WeakSet[SecretBook] = weakref.WeakSet()


class _RedactAuthLogs(logging.Filter):
    """The SDK logs OAuth failures with their exception (error bodies may echo a secret): log
    them as one redacted line instead, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text = f"{text}: {type(exc).__name__}: {exc}"
        for book in list(_BOOKS):
            text = book.redact(text)
        record.msg, record.args = text, ()
        record.exc_info, record.exc_text = None, None
        return True


def _check_grant(owner: str, storage: object, scope: object) -> None:
    """What every grant needs: the host's token storage, and an optional scope."""
    if not isinstance(storage, McpTokenStorage):
        raise TypeError(
            f"{owner}.storage must be a McpTokenStorage (async load_tokens/save_tokens/"
            f"load_client/save_client), got {storage!r:.200}"
        )
    _check_text(f"{owner}.scope", scope)


def _check_text(where: str, value: object, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value or "\x00" in value:
        rule = "a non-empty str" + (" or None" if optional else "")
        error = ValueError if isinstance(value, str) else TypeError
        raise error(f"{where} must be {rule}, got {value!r:.200}")


def _check_url(where: str, value: object, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        error = ValueError if isinstance(value, str) else TypeError
        raise error(f"{where} must be an http(s) URL, got {value!r:.200}")


@dataclass(frozen=True, slots=True, kw_only=True)
class McpOAuthAuthorizationCode:
    """Authorization code + PKCE: the host shows ``redirect_handler(url)`` to a person, and
    ``callback_handler()`` returns the URL the authorization server redirected back to."""

    storage: McpTokenStorage = field(repr=False)
    redirect_uri: str
    redirect_handler: Callable[[str], Awaitable[None]] = field(repr=False)
    callback_handler: Callable[[], Awaitable[str]] = field(repr=False)
    client_name: str = "prism"
    scope: str | None = None
    client_metadata_url: str | None = None
    """An https URL used as ``client_id`` when the server supports client metadata documents."""
    handler_timeout_seconds: float = 300.0
    """Bound on the redirect handler plus the callback handler (a person signs in)."""
    secrets: SecretBook = field(default_factory=SecretBook, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "McpOAuthAuthorizationCode"
        _check_grant(owner, self.storage, self.scope)
        _check_url(f"{owner}.redirect_uri", self.redirect_uri, optional=False)
        for name in ("redirect_handler", "callback_handler"):
            check_callable(f"{owner}.{name}", getattr(self, name))
        _check_text(f"{owner}.client_name", self.client_name)
        _check_url(f"{owner}.client_metadata_url", self.client_metadata_url)
        timeout = check_seconds(
            f"{owner}.handler_timeout_seconds", self.handler_timeout_seconds, cap=3_600.0
        )
        object.__setattr__(self, "handler_timeout_seconds", timeout)


@dataclass(frozen=True, slots=True, kw_only=True)
class McpOAuthClientCredentials:
    """Client credentials (machine to machine): a ``client_secret``, or an ``assertion``
    callable that returns a signed JWT for the audience it is given (``private_key_jwt``)."""

    storage: McpTokenStorage = field(repr=False)
    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    assertion: Callable[[str], Awaitable[str]] | None = field(default=None, repr=False)
    token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = (
        "client_secret_basic"
    )
    scope: str | None = None
    issuer: str | None = None
    """The authorization server these credentials belong to; discovery may not lead elsewhere."""
    secrets: SecretBook = field(default_factory=SecretBook, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "McpOAuthClientCredentials"
        _check_grant(owner, self.storage, self.scope)
        _check_text(f"{owner}.client_id", self.client_id, optional=False)
        _check_text(f"{owner}.client_secret", self.client_secret)
        if (self.client_secret is None) == (self.assertion is None):
            raise ValueError(
                f"{owner}.assertion must be given exactly when client_secret is not (give exactly "
                f"one of client_secret and assertion), got {self.assertion!r:.200}"
            )
        check_callable(f"{owner}.assertion", self.assertion, optional=True)
        check_choice(
            f"{owner}.token_endpoint_auth_method",
            self.token_endpoint_auth_method,
            ("client_secret_basic", "client_secret_post"),
        )
        _check_url(f"{owner}.issuer", self.issuer)
        self.secrets.add_fields({"client_id": self.client_id, "client_secret": self.client_secret})


McpOAuth = McpOAuthAuthorizationCode | McpOAuthClientCredentials


class _Storage:
    """The SDK's ``TokenStorage`` over the host's JSON storage, remembering every secret."""

    def __init__(self, host: McpTokenStorage, book: SecretBook) -> None:
        self._host, self._book = host, book

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        return self._load(await self._host.load_tokens(), OAuthToken, "tokens")

    async def set_tokens(self, tokens: Any) -> None:
        await self._host.save_tokens(self._remembered(tokens))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        return self._load(await self._host.load_client(), OAuthClientInformationFull, "client")

    async def set_client_info(self, client_info: Any) -> None:
        await self._host.save_client(self._remembered(client_info))

    def _remembered(self, model: Any) -> dict[str, Any]:
        """``model`` as JSON, after its credential fields are remembered for redaction."""
        data: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
        self._book.add_fields(data)
        return data

    def _load(self, data: object, model: Any, what: str) -> Any:
        if data is None:
            return None
        if not isinstance(data, Mapping):
            logger.warning("stored OAuth %s ignored: not a mapping", what)
            return None
        self._book.add_fields(data)
        try:
            return model.model_validate(dict(data))
        except ValueError:
            logger.warning("stored OAuth %s ignored: not valid", what)
            return None


def _callback_result(url: object, book: SecretBook) -> Any:
    """Parse the redirect URL the host got back into the SDK's code/state/iss result."""
    from mcp.client.auth import OAuthFlowError
    from mcp.shared.auth import AuthorizationCodeResult

    if not isinstance(url, str):
        raise OAuthFlowError(
            f"OAuth callback handler: returned a {type(url).__name__}, not the redirect URL (a str)"
        )
    query = parse_qs(urlsplit(url).query)
    code = query.get("code", [None])[0]
    book.add(code)
    if code is None:
        error = query.get("error", ["no code"])[0]
        raise OAuthFlowError(
            f"OAuth authorization: the server did not grant access ({error[:200]})"
        )
    state = query.get("state", [None])[0]
    iss = query.get("iss", [None])[0]
    return AuthorizationCodeResult(code=code, state=state, iss=iss)


def _code_provider(config: McpOAuthAuthorizationCode, server_url: str) -> Any:
    from mcp.client.auth import OAuthClientProvider, OAuthFlowError
    from mcp.shared.auth import OAuthClientMetadata

    pending: list[str] = []

    async def redirect(url: str) -> None:
        pending.append(url)

    async def callback() -> Any:
        url = pending.pop() if pending else None
        if url is None:
            raise OAuthFlowError("OAuth authorization: no authorization URL to send the user to")
        with anyio.fail_after(config.handler_timeout_seconds):
            await config.redirect_handler(url)
            answer = await config.callback_handler()
        return _callback_result(answer, config.secrets)

    metadata = OAuthClientMetadata(
        client_name=config.client_name,
        redirect_uris=[config.redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=config.scope,
    )
    return OAuthClientProvider(
        server_url=server_url,
        client_metadata=metadata,
        storage=_Storage(config.storage, config.secrets),
        redirect_handler=redirect,
        callback_handler=callback,
        client_metadata_url=config.client_metadata_url,
    )


def _credentials_provider(config: McpOAuthClientCredentials, server_url: str) -> Any:
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
    )

    common: dict[str, Any] = {
        "server_url": server_url,
        "storage": _Storage(config.storage, config.secrets),
        "client_id": config.client_id,
        "scope": config.scope,
        "issuer": config.issuer,
    }
    if config.assertion is not None:
        assertion = config.assertion

        async def signed(audience: str) -> str:
            token = await assertion(audience)
            config.secrets.add(token)
            return token

        return PrivateKeyJWTOAuthProvider(**common, assertion_provider=signed)
    assert config.client_secret is not None
    return ClientCredentialsOAuthProvider(
        **common,
        client_secret=config.client_secret,
        token_endpoint_auth_method=config.token_endpoint_auth_method,
    )


def build_auth(config: McpOAuth, server_url: str) -> Any:
    """The SDK's ``httpx2.Auth`` for ``config`` (one per connection; tokens live in storage)."""
    if isinstance(config, McpOAuthAuthorizationCode):
        return _code_provider(config, server_url)
    return _credentials_provider(config, server_url)


def redact_text(config: McpOAuth | None, text: str) -> str:
    """``text`` without any credential ``config`` has seen."""
    if config is None:
        return text
    out: str = config.secrets.redact(text)
    return out


logging.getLogger("mcp.client.auth").addFilter(_RedactAuthLogs())
logging.getLogger("mcp.client.auth.oauth2").addFilter(_RedactAuthLogs())
