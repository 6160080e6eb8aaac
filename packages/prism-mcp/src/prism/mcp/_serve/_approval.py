"""Approvals for served tools: the owning client's user (elicitation), else the operator's
approver, else a denial that says no one could be asked."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Protocol, TypeAlias, final

import anyio

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError
from prism.core import AbortSignal, PrismError
from prism.core.options import check_callable, check_seconds

from ._auth import APPROVE_SCOPE

__all__ = [
    "CURRENT_REQUEST",
    "ApprovalPrompt",
    "HostApprove",
    "McpApproval",
    "NoApproverError",
    "OperatorDeniedError",
]

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


@final
class NoApproverError(PrismError, RuntimeError):
    """Approval was needed and no one could be asked; the message says why."""


class OperatorDeniedError(PrismError, PermissionError):
    """The server operator's approver (not the client's user) denied the call."""


class McpApproval:
    """An approve callback for execution policies of served tools, with an owner.

    The client's user is asked by elicitation (bounded by ``timeout_seconds``; no answer,
    decline or cancel = deny) only when that client owns approvals: over stdio (the client is
    the user's own app), or over HTTP when its bearer token has the ``prism:approve`` scope.
    Otherwise ``approver``, the operator's out-of-band approver, decides. With neither,
    ``NoApproverError`` says that no one could be asked (the policy denies).
    """

    __slots__ = ("approver", "timeout_seconds")

    def __init__(
        self, *, approver: HostApprove | None = None, timeout_seconds: float = 120.0
    ) -> None:
        check_callable("McpApproval.approver", approver, optional=True)
        timeout_seconds = check_seconds("McpApproval.timeout_seconds", timeout_seconds, cap=3600.0)
        self.approver = approver
        self.timeout_seconds = float(timeout_seconds)

    async def __call__(self, request: ApprovalPrompt) -> bool:
        ctx = CURRENT_REQUEST.get()
        why = "the call did not come from an MCP client"
        if ctx is not None:
            why = _why_client_cannot_approve(ctx)
            if not why:
                said = await self._elicit(ctx, request)
                if said is not None:
                    return said
                why = "this connection cannot carry a question to the client (no back channel)"
        if self.approver is None:
            raise NoApproverError(
                f"no one could be asked to approve this: {why}, and the server has no approver"
            )
        answer = self.approver(request)
        if inspect.isawaitable(answer):
            answer = await answer
        if answer is not True:  # say who decided: the policy's own wording names the user
            raise OperatorDeniedError(
                "the server operator's approver denied this (not the client's user); "
                "do not retry the same action"
            )
        return True

    async def _elicit(self, ctx: ServerRequestContext[Any], request: ApprovalPrompt) -> bool | None:
        """The user's answer; ``None`` when this connection cannot carry the question (the
        2026-07-28 era has no back channel for server requests)."""
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


def _why_client_cannot_approve(ctx: ServerRequestContext[Any]) -> str:
    """Empty when the calling client owns approvals and can be asked, else the reason."""
    http = ctx.request
    transport = getattr(ctx, "transport", None)
    if http is not None or getattr(transport, "headers", None) is not None:  # over HTTP
        user = getattr(http, "scope", {}).get("user")
        scopes = getattr(user, "scopes", None) or ()
        if APPROVE_SCOPE not in scopes:
            return (
                f"an HTTP client may not approve its own calls (its token lacks the "
                f"{APPROVE_SCOPE!r} scope)"
            )
    if not _can_elicit(ctx):
        return "the MCP client did not declare the elicitation capability"
    return ""


def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    try:
        return ctx.session.check_client_capability(
            types.ClientCapabilities(elicitation=types.ElicitationCapability())
        )
    except Exception:
        return False
