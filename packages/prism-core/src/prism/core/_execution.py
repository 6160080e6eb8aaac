"""The execution-policy seam: tools ask a policy before any side effect."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, final, runtime_checkable

from ._abort import AbortSignal
from ._backend import maybe_await
from ._errors import PrismError
from ._types import EMPTY_MAPPING

__all__ = [
    "ExecutionAction",
    "ExecutionDecision",
    "ExecutionDeniedError",
    "ExecutionPolicy",
    "assert_execution_allowed",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionAction:
    """A side effect a tool is about to perform, described for a policy."""

    kind: str
    operation: str
    paths: tuple[str, ...] = ()
    command: str | None = None
    cwd: str | None = None
    risk: Literal["low", "medium", "high"] | None = None
    metadata: Mapping[str, object] = field(default_factory=lambda: EMPTY_MAPPING)
    signal: AbortSignal | None = field(default=None, compare=False)
    """The call's abort signal, so a policy can bound a pending approval (set by
    ``assert_execution_allowed``)."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionDecision:
    """A policy's verdict; ``modified`` fields replace the action's when allowed."""

    allowed: bool
    reason: str | None = None
    modified: Mapping[str, object] | None = None
    exclusive: bool = False


@runtime_checkable
class ExecutionPolicy(Protocol):
    """Decides whether an ``ExecutionAction`` may happen."""

    def check(self, action: ExecutionAction) -> ExecutionDecision | Awaitable[ExecutionDecision]:
        """Return (or resolve to) a decision; raising counts as a denial."""
        ...


@final
class ExecutionDeniedError(PrismError, PermissionError):
    """The execution policy refused an action; ``reason`` says why."""

    code = "execution_denied"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


_ACTION_FIELDS = frozenset(f.name for f in dataclasses.fields(ExecutionAction))


async def assert_execution_allowed(
    policy: ExecutionPolicy | None,
    action: ExecutionAction,
    *,
    signal: AbortSignal | None = None,
) -> ExecutionAction:
    """Ask ``policy`` about ``action``; return the (possibly modified) action or raise.

    ``None`` allows everything. A policy that raises, returns a non-decision, or denies
    raises ``ExecutionDeniedError``. An already-aborted ``signal`` denies before asking.
    """
    if signal is not None and signal.aborted:
        raise ExecutionDeniedError("aborted before the action could run")
    if policy is None:
        return action
    if signal is not None and action.signal is not signal:
        action = dataclasses.replace(action, signal=signal)
    try:
        decision = await maybe_await(policy.check(action))
    except Exception as exc:
        raise ExecutionDeniedError(
            f"execution policy failed ({type(exc).__name__}: {exc}); denied"
        ) from exc
    if not isinstance(decision, ExecutionDecision):
        raise ExecutionDeniedError(
            f"execution policy returned {type(decision).__name__}, not an ExecutionDecision; denied"
        )
    if not decision.allowed:
        raise ExecutionDeniedError(decision.reason or f"{action.kind} {action.operation} denied")
    if decision.modified:
        unknown = set(decision.modified) - _ACTION_FIELDS
        if unknown:
            raise ExecutionDeniedError(
                f"execution policy modified unknown action fields {sorted(unknown)}; denied"
            )
        changes: dict[str, Any] = dict(decision.modified)
        if "paths" in changes:
            changes["paths"] = tuple(changes["paths"])
        action = dataclasses.replace(action, **changes)
    return action
