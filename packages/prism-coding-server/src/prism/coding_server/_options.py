"""What the coding server is configured with (the console script fills this in)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

__all__ = ["CodingServerOptions"]

SECRET_ENV_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "CREDENTIAL")


@dataclass(frozen=True, slots=True, kw_only=True)
class CodingServerOptions:
    """``sandbox=None``: bubblewrap when it works here, else the local shell; ``True``: required.
    ``roots`` are resolved (realpath) here, once."""

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

    def __post_init__(self) -> None:
        if not self.roots or not all(isinstance(r, str) and r for r in self.roots):
            raise ValueError(f"roots: expected at least one directory, got {self.roots!r}")
        for root in self.roots:
            if not os.path.isdir(root):
                raise ValueError(f"roots: {root!r} is not a directory")
        object.__setattr__(self, "roots", tuple(os.path.realpath(r) for r in self.roots))
        if isinstance(self.deny_read, str) or not all(
            isinstance(p, str) and p for p in self.deny_read
        ):
            raise ValueError(f"deny_read: expected a tuple of paths, got {self.deny_read!r}")
        if self.transport not in ("stdio", "http"):
            raise ValueError(f"transport: expected 'stdio' or 'http', got {self.transport!r}")
        if type(self.port) is not int or not 0 <= self.port <= 65_535:
            raise ValueError(f"port: expected 0..65535, got {self.port!r}")


def secrets_from_environment(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """Values of variables whose names look like credentials: redacted from results and ledger."""
    return [
        value
        for name, value in environ.items()
        if len(value) >= 8 and any(word in name.upper() for word in SECRET_ENV_WORDS)
    ]
