"""pydantic-ai runs on asyncio only, so these tests do too. The LLM is scripted (``Script``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Script:
    """A scripted model: each turn returns the next list of tool calls; then it answers with text.

    It records what the model was shown: the tools offered and every tool return or retry prompt.
    """

    def __init__(self, *turns: Sequence[ToolCallPart]) -> None:
        self.turns = list(turns)
        self.offered: list[list[str]] = []
        self.returns: dict[str, object] = {}
        self.retries: dict[str, str] = {}

    def model(self) -> FunctionModel:
        return FunctionModel(self._respond)

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([tool.name for tool in info.function_tools])
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart) and getattr(part, "retry", None) is not None:
                    self.retries[part.tool_call_id] = str(part.content)
                elif isinstance(part, ToolReturnPart):
                    self.returns[part.tool_call_id] = part.content
                elif isinstance(part, RetryPromptPart) and part.tool_call_id:
                    self.retries[part.tool_call_id] = str(part.content)
        if self.turns:
            return ModelResponse(parts=list(self.turns.pop(0)))
        return ModelResponse(parts=[TextPart("done")])


def call(tool: str, call_id: str, /, **arguments: Any) -> ToolCallPart:
    """One scripted tool call."""
    return ToolCallPart(tool_name=tool, args=arguments, tool_call_id=call_id)


Handler = Callable[..., Any]
