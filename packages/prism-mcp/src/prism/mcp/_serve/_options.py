"""Options of a served pipeline: identity, per-call bounds, and the HTTP listener's guards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

from prism.core.options import GIB, check_callable, check_count, check_flag, check_seconds

__all__ = ["Authorize", "HttpOptions", "ServeOptions"]

Authorize: TypeAlias = Callable[[str | None], "bool | Awaitable[bool]"]
"""Given the bearer token of an HTTP request (``None`` when absent), whether to serve it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeOptions:
    """What every served call shares. ``call_timeout_seconds=None`` means no deadline."""

    name: str = "prism"
    version: str = "0.1.0"
    instructions: str | None = None
    call_timeout_seconds: float | None = None
    max_result_bytes: int = 10 * 1024 * 1024
    session_id: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"ServeOptions.name must be a non-empty str, got {self.name!r}")
        check_count("ServeOptions.max_result_bytes", self.max_result_bytes, cap=1 * GIB)
        if self.call_timeout_seconds is not None:
            where = "ServeOptions.call_timeout_seconds"
            seconds = check_seconds(where, self.call_timeout_seconds, cap=86_400.0)
            object.__setattr__(self, "call_timeout_seconds", seconds)


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpOptions:
    """The Streamable HTTP listener: loopback by default, ``Host``/``Origin`` checked
    (DNS-rebinding protection) and an optional bearer-token check on every request."""

    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    authorize: Authorize | None = None
    json_response: bool = False
    stateless: bool = False

    def __post_init__(self) -> None:
        check_count("HttpOptions.port", self.port, cap=65_535, minimum=0)
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise ValueError(f"HttpOptions.path must be an absolute URL path, got {self.path!r}")
        for field_name in ("allowed_hosts", "allowed_origins"):
            value = getattr(self, field_name)
            if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"HttpOptions.{field_name} must be a tuple of non-empty strings")
        check_callable("HttpOptions.authorize", self.authorize, optional=True)
        check_flag("HttpOptions.json_response", self.json_response)
        check_flag("HttpOptions.stateless", self.stateless)
