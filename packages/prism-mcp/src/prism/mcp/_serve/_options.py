"""Options of a served pipeline: identity, per-call bounds, and the HTTP listener's guards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["Authorize", "HttpOptions", "ServeOptions"]

Authorize: TypeAlias = Callable[[str | None], "bool | Awaitable[bool]"]
"""Given the bearer token of an HTTP request (``None`` when absent), whether to serve it."""

_MAX_RESULT_BYTES_CAP = 1 << 30
_MAX_TIMEOUT_SECONDS = 86_400.0


def _positive_int(name: str, value: object, cap: int) -> None:
    if type(value) is not int or not 1 <= value <= cap:
        raise ValueError(f"{name}: expected an integer from 1 to {cap}, got {value!r}")


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
            raise ValueError(f"name: expected a non-empty string, got {self.name!r}")
        _positive_int("max_result_bytes", self.max_result_bytes, _MAX_RESULT_BYTES_CAP)
        timeout = self.call_timeout_seconds
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 < timeout <= _MAX_TIMEOUT_SECONDS
        ):
            cap = f"{_MAX_TIMEOUT_SECONDS:.0f}"
            raise ValueError(
                f"call_timeout_seconds: expected None or 0 < seconds <= {cap}, got {timeout!r}"
            )


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
        if type(self.port) is not int or not 0 <= self.port <= 65_535:
            raise ValueError(f"port: expected 0..65535, got {self.port!r}")
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise ValueError(f"path: expected an absolute URL path, got {self.path!r}")
        for field_name in ("allowed_hosts", "allowed_origins"):
            value = getattr(self, field_name)
            if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"{field_name}: expected a tuple of non-empty strings")
        if self.authorize is not None and not callable(self.authorize):
            raise ValueError("authorize: expected a callable or None")
