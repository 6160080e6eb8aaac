"""Bearer tokens for the HTTP listener: constant-time verifiers, token files, the approver
scope."""

from __future__ import annotations

import hmac
import inspect
import os
import secrets
import stat
import tempfile
from collections.abc import Awaitable, Callable, Sequence

from mcp.server.auth.provider import AccessToken

__all__ = [
    "APPROVE_SCOPE",
    "BearerTokens",
    "HookVerifier",
    "new_token",
    "read_token_file",
    "remove_token_file",
    "write_token_file",
]

APPROVE_SCOPE = "prism:approve"
"""The scope of a token whose sessions may approve their own calls (by elicitation)."""
MIN_TOKEN_CHARS = 16
MAX_TOKEN_BYTES = 4096
_CALLER, _APPROVER = "prism-caller", "prism-approver"


def _check_token(where: str, token: object) -> bytes:
    if (
        not isinstance(token, str)
        or len(token) < MIN_TOKEN_CHARS
        or len(token.encode()) > MAX_TOKEN_BYTES
        or not token.isprintable()
        or any(c.isspace() for c in token)
    ):
        shown = f"{len(token)} characters" if isinstance(token, str) else type(token).__name__
        raise (ValueError if isinstance(token, str) else TypeError)(
            f"{where} must be printable strings of {MIN_TOKEN_CHARS} to {MAX_TOKEN_BYTES} bytes "
            f"without whitespace, got {shown}"
        )
    return token.encode()


class BearerTokens:
    """A token verifier (the MCP SDK's ``TokenVerifier``) for fixed bearer tokens.

    Every known token is compared with ``hmac.compare_digest`` (no early exit). ``tokens`` may
    call tools; ``approver_tokens`` may also approve their own calls (scope ``prism:approve``).
    The two kinds are different principals, so a session opened with one cannot be used with
    the other.
    """

    __slots__ = ("_known",)

    def __init__(self, tokens: Sequence[str], *, approver_tokens: Sequence[str] = ()) -> None:
        for where, group in (("tokens", tokens), ("approver_tokens", approver_tokens)):
            if isinstance(group, str | bytes):
                raise TypeError(
                    f"BearerTokens.{where} must be a sequence of strings, got one (not shown)"
                )
        known = [(_check_token("BearerTokens.tokens", t), _CALLER) for t in tokens]
        known += [
            (_check_token("BearerTokens.approver_tokens", t), _APPROVER) for t in approver_tokens
        ]
        if not known:
            raise ValueError(
                "BearerTokens.tokens must be at least one token (counting approver_tokens), got "
                "none"
            )
        if set(tokens) & set(approver_tokens):
            raise ValueError(
                "BearerTokens.approver_tokens must be different from tokens (a shared token would "
                "let "
                "every caller approve its own calls), got a token in both (not shown)"
            )
        self._known = tuple(known)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access info, or ``None`` when it is not one of ours."""
        given = token.encode("utf-8", "surrogateescape")
        found: str | None = None
        for known, principal in self._known:
            if hmac.compare_digest(given, known):
                found = principal
        if found is None:
            return None
        scopes = ["mcp", APPROVE_SCOPE] if found == _APPROVER else ["mcp"]
        return AccessToken(token=token, client_id=found, scopes=scopes)


def new_token() -> str:
    """A fresh random bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def write_token_file(token: str, directory: str | None = None) -> str:
    """Write ``token`` to a new file only this user can read (mode 0600, in a fresh 0700
    directory under ``directory`` or the temp dir); returns its path."""
    _check_token("token", token)
    folder = tempfile.mkdtemp(prefix="prism-mcp-", dir=directory)
    path = os.path.join(folder, "token")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(token + "\n")
    return path


def remove_token_file(path: str) -> None:
    """Remove a file made by ``write_token_file`` and its directory (missing is fine)."""
    for remove, target in ((os.unlink, path), (os.rmdir, os.path.dirname(path))):
        try:
            remove(target)
        except OSError:
            pass


def _check_directory(path: str) -> None:
    """Like ssh's StrictModes: the directory holding the token file (and the one holding its
    real file, through symlinks) must be owned by this user or root, and not writable by
    group or others unless sticky (then others cannot replace our file)."""
    euid = os.geteuid()
    folders = {os.path.dirname(os.path.abspath(path)), os.path.dirname(os.path.realpath(path))}
    for folder in sorted(folders):
        try:
            info = os.stat(folder)
        except OSError as error:
            raise ValueError(
                f"token file {path!r}: directory {folder!r}: {error.strerror}"
            ) from None
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in (euid, 0):
            raise ValueError(
                f"token file {path!r}: its directory {folder!r} is owned by uid {info.st_uid}, "
                f"not by this server's user (uid {euid}) or root; that user could replace the file"
            )
        if mode & 0o022 and not mode & stat.S_ISVTX:
            raise ValueError(
                f"token file {path!r}: its directory {folder!r} may be written by other users "
                f"(mode {mode:04o}), who could replace the file; run: chmod go-w {folder}"
            )


def read_token_file(path: str) -> str:
    """The token in ``path`` (surrounding whitespace stripped). Refused, naming the path: a
    missing or non-regular file, one owned by another user, one that group or others may
    read, one in a directory others may write, or a malformed token."""
    _check_directory(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise ValueError(f"token file {path!r}: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"token file {path!r}: not a regular file")
        if info.st_uid != os.geteuid():
            raise ValueError(
                f"token file {path!r}: owned by uid {info.st_uid}, not by this server's user "
                f"(uid {os.geteuid()}); that user knows or chose the token"
            )
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            raise ValueError(
                f"token file {path!r}: may be read by other users (mode {mode:04o}); "
                f"run: chmod 600 {path}"
            )
        raw = file.read(MAX_TOKEN_BYTES + 2)
    try:
        token = raw.decode().strip()
    except UnicodeDecodeError:
        raise ValueError(f"token file {path!r}: not UTF-8 text") from None
    _check_token(f"the token in {path!r}", token)
    return token


class HookVerifier:
    """``HttpOptions.authorize`` as a token verifier: ``True`` (sync or async) admits the token;
    anything else, an exception included, refuses it."""

    __slots__ = ("_authorize",)

    def __init__(self, authorize: Callable[[str], bool | Awaitable[bool]]) -> None:
        self._authorize = authorize

    async def verify_token(self, token: str) -> AccessToken | None:
        """Access info for an admitted token (no approver scope), else ``None``."""
        try:
            allowed = self._authorize(token)
            if inspect.isawaitable(allowed):
                allowed = await allowed
        except Exception:
            return None
        if allowed is not True:
            return None
        return AccessToken(token=token, client_id=_CALLER, scopes=["mcp"])
