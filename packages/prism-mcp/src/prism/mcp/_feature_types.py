"""What a host hands the bridge to serve elicitation, sampling and roots, and what it gets asked.

Each feature is declared to the server only when its handler is given; every request a server
sends for one passes the host's permission policy (``mcp:<server_id>:elicit``, ``…:sample``,
``…:roots``) and is bounded in size, time and concurrency (``McpClientFeatures``).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, final

from prism.core import PermissionPolicy
from prism.core.options import MIB, check_callable, check_choice, check_count, check_seconds

__all__ = [
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationResponse",
    "McpClientFeatures",
    "RootsProvider",
    "SamplingHandler",
    "SamplingRequest",
    "SamplingResponse",
]

ElicitAction = Literal["accept", "decline", "cancel"]
_EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitationRequest:
    """A server asks the user for input: a form (``requested_schema``) or a URL to open."""

    server_id: str
    message: str
    mode: Literal["form", "url"]
    requested_schema: Mapping[str, Any] | None = None
    url: str | None = None
    elicitation_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitationResponse:
    """The user's answer: ``accept`` (with form ``content``), ``decline`` or ``cancel``."""

    action: ElicitAction
    content: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        check_choice("ElicitationResponse.action", self.action, ("accept", "decline", "cancel"))
        if self.content is not None and not isinstance(self.content, Mapping):
            kind = type(self.content).__name__
            raise TypeError(f"ElicitationResponse.content must be a mapping or None, got {kind}")
        if self.content is not None and self.action != "accept":
            raise ValueError(
                "ElicitationResponse.content must be None unless action='accept', got "
                f"{self.content!r:.200}"
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingRequest:
    """A server asks the host's model for a completion; ``messages`` are the wire JSON objects."""

    server_id: str
    messages: tuple[Mapping[str, Any], ...]
    max_tokens: int
    system_prompt: str | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """The whole ``sampling/createMessage`` params as JSON (preferences, stop sequences, …)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingResponse:
    """The model's text answer, the model that produced it, and why it stopped."""

    text: str
    model: str
    stop_reason: str | None = "endTurn"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"SamplingResponse.text must be a str, got {type(self.text).__name__}")
        if not isinstance(self.model, str) or not self.model:
            error = ValueError if isinstance(self.model, str) else TypeError
            raise error(f"SamplingResponse.model must be a non-empty str, got {self.model!r:.200}")
        if self.stop_reason is not None and not isinstance(self.stop_reason, str):
            raise TypeError(
                f"SamplingResponse.stop_reason must be a str or None, got {self.stop_reason!r}"
            )


ElicitationHandler = Callable[[ElicitationRequest], Awaitable[ElicitationResponse]]
SamplingHandler = Callable[[SamplingRequest], Awaitable[SamplingResponse]]
RootPaths = Sequence[str | os.PathLike[str]]
RootsProvider = RootPaths | Callable[[], RootPaths | Awaitable[RootPaths]]
"""Absolute directories (e.g. ``canonicalize_roots(...)`` from prism-coding-security), or a
callable returning them (sync or async), asked on every ``roots/list``."""


def _check_roots(value: object) -> None:
    if value is None or callable(value):
        return
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Sequence):
        raise TypeError(
            "McpClientFeatures.roots must be a sequence of absolute directories, a callable, "
            f"or None, got {value!r:.200}"
        )
    for item in value:
        text = os.fspath(item) if isinstance(item, os.PathLike) else item
        if not isinstance(text, str) or not os.path.isabs(text) or "\x00" in text:
            error = ValueError if isinstance(text, str) else TypeError
            raise error(f"McpClientFeatures.roots must be absolute paths, got {item!r:.200}")


_COUNT_CAPS = {
    "max_request_bytes": 16 * MIB,
    "max_response_bytes": 16 * MIB,
    "max_concurrent": 64,
    "max_roots": 4_096,
}


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class McpClientFeatures:
    """Which client features a bridge offers its server, and the bounds on every request.

    ``permission`` is required: each request is checked as ``mcp:<server_id>:<action>``
    (``elicit``, ``sample``, ``roots``); a denial answers the server with a JSON-RPC error.
    """

    permission: PermissionPolicy
    elicitation: ElicitationHandler | None = None
    sampling: SamplingHandler | None = None
    roots: RootsProvider | None = None
    timeout_seconds: float = 300.0
    """Bound on the permission check plus the handler for one request (a person may answer)."""
    max_request_bytes: int = 1 * MIB
    """A server request whose params encode larger than this is refused unseen."""
    max_response_bytes: int = 1 * MIB
    """A host answer that encodes larger than this is replaced by an error to the server."""
    max_concurrent: int = 4
    """Requests served at once per connection; more are refused at once."""
    max_roots: int = 256
    """More roots than this from ``roots`` fails that ``roots/list`` request."""

    def __post_init__(self) -> None:
        if not isinstance(self.permission, PermissionPolicy):
            raise TypeError(
                "McpClientFeatures.permission must be a PermissionPolicy "
                f"(e.g. create_static_permission_policy()), got {self.permission!r}"
            )
        check_callable("McpClientFeatures.elicitation", self.elicitation, optional=True)
        check_callable("McpClientFeatures.sampling", self.sampling, optional=True)
        _check_roots(self.roots)
        seconds = check_seconds(
            "McpClientFeatures.timeout_seconds", self.timeout_seconds, cap=3_600.0
        )
        object.__setattr__(self, "timeout_seconds", seconds)
        for name, cap in _COUNT_CAPS.items():
            check_count(f"McpClientFeatures.{name}", getattr(self, name), cap=cap)

    @property
    def declared(self) -> tuple[str, ...]:
        """The features declared to the server, in a fixed order."""
        named = (("elicitation", self.elicitation), ("sampling", self.sampling))
        out = [name for name, handler in named if handler is not None]
        return (*out, "roots") if self.roots is not None else tuple(out)
