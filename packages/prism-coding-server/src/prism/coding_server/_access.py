"""Who may use the coding server over HTTP: the bearer tokens, and who approves."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from prism.core import PrismError
from prism.mcp.server import (
    BearerTokens,
    HttpOptions,
    new_token,
    read_token_file,
    remove_token_file,
    write_token_file,
)

from ._options import CodingServerOptions

__all__ = ["NO_AUTH_WARNING", "TOKEN_ENV", "AccessError", "HttpAccess", "http_access"]

TOKEN_ENV = "PRISM_CODING_SERVER_TOKEN"
"""Environment variable that may hold the bearer token (instead of a generated one)."""
NO_AUTH_WARNING = (
    "WARNING: authentication is OFF (--no-auth): any local process, user or container that can "
    "reach this port can read and write the roots and run the commands the policy allows"
)


class AccessError(PrismError, ValueError):
    """A token (file or variable) the server cannot use; the message names it."""


@dataclass(frozen=True, slots=True)
class HttpAccess:
    """The listener's options and the lines the console script prints about them."""

    http: HttpOptions
    notes: tuple[str, ...]


def _token(options: CodingServerOptions, environ: Mapping[str, str]) -> tuple[str, str | None]:
    """(token, where it came from); ``None`` as the source: generate one."""
    if options.token_file is not None:
        return read_token_file(options.token_file), f"from {options.token_file}"
    from_env = environ.get(TOKEN_ENV)
    if from_env:
        try:
            BearerTokens([from_env])
        except ValueError as error:
            raise ValueError(f"environment variable ${TOKEN_ENV}: {error}") from None
        return from_env, f"from ${TOKEN_ENV}"
    return new_token(), None


@contextmanager
def http_access(
    options: CodingServerOptions, environ: Mapping[str, str] = os.environ
) -> Iterator[HttpAccess]:
    """The HTTP options for ``options``; a generated token lives in a 0600 file removed on exit.

    Raises ``AccessError`` (naming the file or variable) for an unusable token.
    """
    if not options.auth:
        http = HttpOptions(port=options.port, allow_unauthenticated=True, sessions=options.sessions)
        yield HttpAccess(http, (NO_AUTH_WARNING,))
        return
    try:
        token, source = _token(options, environ)
        approvers: tuple[str, ...] = ()
        if options.approver_token_file is not None:
            approvers = (read_token_file(options.approver_token_file),)
        verifier = BearerTokens([token], approver_tokens=approvers)
    except ValueError as error:
        raise AccessError(str(error)) from None
    written = write_token_file(token) if source is None else None
    notes = [f"bearer token {source or f'written to {written} (mode 0600)'}; "
             "clients send 'Authorization: Bearer <token>'"]  # fmt: skip
    if approvers:
        notes.append(f"approver token from {options.approver_token_file}")
    http = HttpOptions(port=options.port, token_verifier=verifier, sessions=options.sessions)
    try:
        yield HttpAccess(http, tuple(notes))
    finally:
        if written is not None:
            remove_token_file(written)
