"""The Agents SDK runs on asyncio only, so these tests do too. The LLM is the SDK's own
``ScriptedModel`` (the only fake); tracing is off so nothing leaves the machine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, Tool
from agents.testing import ScriptedModel, assistant_message, function_call


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def call(tool: str, call_id: str, /, arguments: str | None = None, **decoded: Any) -> Any:
    """One scripted function call; raw ``arguments`` text wins over keyword arguments."""
    return function_call(tool, arguments if arguments is not None else decoded, call_id=call_id)


class Script:
    """A scripted model: each turn is a list of calls; the last turn answers "done"."""

    def __init__(self, *turns: Sequence[Any]) -> None:
        self.model = ScriptedModel([*[list(t) for t in turns], [assistant_message("done")]])

    def outputs(self) -> dict[str, Any]:
        """Every tool output the model was sent, by call id."""
        seen: dict[str, Any] = {}
        for recorded in self.model.calls:
            if isinstance(recorded.input, list):
                for item in recorded.input:
                    if isinstance(item, dict) and item.get("type") == "function_call_output":
                        seen[item["call_id"]] = item["output"]
        return seen

    def offered(self) -> list[str]:
        return [tool.name for tool in self.model.calls[0].tools]

    async def run(self, tools: list[Tool]) -> Any:
        agent = Agent(name="scripted", model=self.model, tools=tools)
        result = await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True))
        self.outputs_seen = self.outputs()
        return result
