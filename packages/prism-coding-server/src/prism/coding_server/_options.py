"""What the coding server is configured with (the console script fills this in)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal, final

from prism.core.options import (
    check_choice,
    check_count,
    check_flag,
    check_instance,
    check_seconds,
)
from prism.mcp.server import SessionLimits

__all__ = ["CodingServerOptions"]

MAX_SECONDS = 3600.0
"""Hard cap of both timeouts (the shell tool's own cap)."""
SECRET_ENV_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "CREDENTIAL")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CodingServerOptions:
    """``sandbox=None``: bubblewrap when it works here, else the local shell; ``True``: required.
    ``roots`` are resolved (realpath) here, once. Over HTTP a bearer token is required unless
    ``auth=False``; ``approver_command`` (argv) is the operator's out-of-band approver;
    ``approver_token_file`` holds a second token whose clients may approve their own calls."""

    roots: tuple[str, ...]
    read_only: bool = False
    sandbox: bool | None = None
    approve_writes: bool = False
    deny_read: tuple[str, ...] = ()
    transport: Literal["stdio", "http"] = "stdio"
    port: int = 8000
    ledger: str | None = None
    approval_timeout_seconds: float = 120.0
    shell_timeout_seconds: float = 600.0
    auth: bool = True
    token_file: str | None = None
    approver_command: tuple[str, ...] | None = None
    approver_tty: bool = False
    approver_token_file: str | None = None
    sessions: SessionLimits = field(default_factory=SessionLimits)

    def __post_init__(self) -> None:
        roots = _check_paths("CodingServerOptions.roots", self.roots)
        if not roots:
            raise ValueError("CodingServerOptions.roots must be at least one directory, got ()")
        for root in roots:
            if not os.path.isdir(root):
                raise ValueError(
                    f"CodingServerOptions.roots must be existing directories, got {root!r:.200}"
                )
        object.__setattr__(self, "roots", tuple(os.path.realpath(r) for r in roots))
        object.__setattr__(
            self, "deny_read", _check_paths("CodingServerOptions.deny_read", self.deny_read)
        )
        check_flag("CodingServerOptions.read_only", self.read_only)
        if self.sandbox is not None:
            check_flag("CodingServerOptions.sandbox", self.sandbox)
        check_flag("CodingServerOptions.approve_writes", self.approve_writes)
        check_choice("CodingServerOptions.transport", self.transport, ("stdio", "http"))
        check_count("CodingServerOptions.port", self.port, minimum=0, cap=65_535)
        if self.ledger is not None:
            _check_paths("CodingServerOptions.ledger", (self.ledger,))
        check_seconds(
            "CodingServerOptions.approval_timeout_seconds",
            self.approval_timeout_seconds,
            cap=MAX_SECONDS,
        )
        check_seconds(
            "CodingServerOptions.shell_timeout_seconds", self.shell_timeout_seconds, cap=MAX_SECONDS
        )
        self._check_access()

    def _check_access(self) -> None:
        check_flag("CodingServerOptions.auth", self.auth)
        for where in ("token_file", "approver_token_file"):
            path = getattr(self, where)
            if path is not None:
                _check_paths(f"CodingServerOptions.{where}", (path,))
        if not self.auth and (self.token_file or self.approver_token_file):
            raise ValueError(
                "CodingServerOptions.auth must be True when a token file is given, got False"
            )
        if self.approver_command is not None:
            command = _check_paths("CodingServerOptions.approver_command", self.approver_command)
            if not command:
                raise ValueError(
                    "CodingServerOptions.approver_command must be a non-empty argv, got ()"
                )
            object.__setattr__(self, "approver_command", command)
        check_flag("CodingServerOptions.approver_tty", self.approver_tty)
        if self.approver_tty and self.approver_command is not None:
            raise ValueError(
                "CodingServerOptions.approver_tty must be False when approver_command is given, "
                "got True"
            )
        check_instance("CodingServerOptions.sessions", self.sessions, SessionLimits)


def _check_paths(where: str, value: object) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty paths without NUL (a lone string is refused)."""
    if isinstance(value, str | bytes) or not isinstance(value, tuple | list):
        raise TypeError(f"{where} must be a tuple of paths, got {value!r:.200}")
    for path in value:
        if not isinstance(path, str) or not path or "\0" in path:
            error = ValueError if isinstance(path, str) else TypeError
            raise error(f"{where} must be non-empty paths without NUL, got {path!r:.200}")
    return tuple(value)


def secrets_from_environment(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """Values of variables whose names look like credentials: redacted from results and ledger."""
    return [
        value
        for name, value in environ.items()
        if len(value) >= 8 and any(word in name.upper() for word in SECRET_ENV_WORDS)
    ]
