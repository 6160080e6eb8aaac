"""Events that dispatch emits, one stream per run, for UIs, logs and tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias, final

from ._fastinit import fast_init
from ._types import ErrorInfo, ToolCall, ToolResult

__all__ = [
    "AgentEvent",
    "BlockedReason",
    "EventSink",
    "ToolExecutionBlocked",
    "ToolExecutionFailed",
    "ToolExecutionFinished",
    "ToolExecutionProgress",
    "ToolExecutionStarted",
]

BlockedReason: TypeAlias = Literal[
    "unknown_tool",
    "tool_denied",
    "invalid_arguments",
    "permission_denied",
    "validation_failed",
    "middleware_failed",
    "aborted",
    "tool_round_limit",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class _CallEvent:
    """What every event says: which session and run, and which call."""

    session_id: str
    run_id: str
    call: ToolCall


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionBlocked(_CallEvent):
    """The call was refused before its handler ran."""

    reason: BlockedReason
    error: ErrorInfo
    duration_seconds: float
    type: Literal["tool_execution_blocked"] = "tool_execution_blocked"


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionStarted(_CallEvent):
    """The handler is about to run."""

    type: Literal["tool_execution_started"] = "tool_execution_started"


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionProgress(_CallEvent):
    """The handler reported progress through ``context.progress``."""

    progress: float | None
    message: str | None
    type: Literal["tool_execution_progress"] = "tool_execution_progress"


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionFinished(_CallEvent):
    """The handler returned (possibly an error result it chose to return)."""

    result: ToolResult
    duration_seconds: float
    type: Literal["tool_execution_finished"] = "tool_execution_finished"


@final
@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionFailed(_CallEvent):
    """The handler (or ``tool_result`` middleware) raised, or the call was cancelled."""

    error: ErrorInfo
    duration_seconds: float
    type: Literal["tool_execution_failed"] = "tool_execution_failed"


AgentEvent: TypeAlias = (
    ToolExecutionBlocked
    | ToolExecutionStarted
    | ToolExecutionProgress
    | ToolExecutionFinished
    | ToolExecutionFailed
)

EventSink: TypeAlias = Callable[[AgentEvent], "None | Awaitable[None]"]
