"""Approvals for served tools: ask the MCP client's user (elicitation), else the host, else no."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Protocol, TypeAlias

import anyio

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError
from prism.core import AbortSignal

__all__ = ["CURRENT_REQUEST", "ApprovalPrompt", "HostApprove", "McpApproval"]

CURRENT_REQUEST: ContextVar[ServerRequestContext[Any] | None] = ContextVar(
    "prism_mcp_current_request", default=None
)
"""The MCP request a served tool call runs under (set by the call handler)."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Approve",
            "description": "Allow this action to run",
        }
    },
    "required": ["approve"],
}


class ApprovalPrompt(Protocol):
    """What an execution policy asks to approve (``prism.coding_security.ApprovalRequest`` fits)."""

    @property
    def signal(self) -> AbortSignal: ...

    def describe(self) -> str: ...


HostApprove: TypeAlias = Callable[[Any], "bool | Awaitable[bool]"]


class McpApproval:
    """An approve callback for execution policies of served tools.

    Inside a call from a client that declared elicitation, the user is asked through an
    elicitation request (bounded by ``timeout_seconds``; no answer, decline or cancel = deny).
    Otherwise the host's ``fallback`` decides; without one, the action is denied.
    """

    __slots__ = ("fallback", "timeout_seconds")

    def __init__(
        self, *, fallback: HostApprove | None = None, timeout_seconds: float = 120.0
    ) -> None:
        if fallback is not None and not callable(fallback):
            raise ValueError("fallback: expected a callable or None")
        if isinstance(timeout_seconds, bool) or not 0 < timeout_seconds <= 3600:
            raise ValueError(
                f"timeout_seconds: expected 0 < seconds <= 3600, got {timeout_seconds!r}"
            )
        self.fallback = fallback
        self.timeout_seconds = float(timeout_seconds)

    async def __call__(self, request: ApprovalPrompt) -> bool:
        ctx = CURRENT_REQUEST.get()
        if ctx is not None and _can_elicit(ctx):
            said = await self._elicit(ctx, request)
            if said is not None:
                return said
        if self.fallback is None:
            return False
        answer = self.fallback(request)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer is True

    async def _elicit(self, ctx: ServerRequestContext[Any], request: ApprovalPrompt) -> bool | None:
        """The user's answer; ``None`` when this connection cannot carry the question (the
        2026-07-28 era has no back channel for server requests), so the host decides."""
        message = f"Allow this action? {request.describe()}"
        with anyio.move_on_after(self.timeout_seconds):
            try:
                result = await ctx.session.elicit_form(
                    message, _SCHEMA, related_request_id=ctx.request_id
                )
            except NoBackChannelError:
                return None
            except Exception:  # client error, malformed answer: deny
                return False
            content = result.content or {}
            return result.action == "accept" and content.get("approve") is True
        return False


def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    try:
        return ctx.session.check_client_capability(
            types.ClientCapabilities(elicitation=types.ElicitationCapability())
        )
    except Exception:
        return False
