"""The minimal agent loop and what it talks to: ``Agent``, its options, messages and providers.

A host that only dispatches tool calls never imports this module.
"""

from __future__ import annotations

from ._agent import Agent, AgentSettings, RunLimits, RunOptions
from ._batch import LoopOptions, LoopStrategy, resolve_tool_concurrency
from ._messages import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    RunResult,
    RunStatus,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

__all__ = [
    "Agent",
    "AgentSettings",
    "AssistantMessage",
    "LoopOptions",
    "LoopStrategy",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "Provider",
    "RunLimits",
    "RunOptions",
    "RunResult",
    "RunStatus",
    "ToolMessage",
    "ToolSpec",
    "UserMessage",
    "resolve_tool_concurrency",
]
