"""Prism's gates around Agents SDK tools the user already has (real @function_tool tools)."""

from __future__ import annotations

import anyio
import pytest
from agents import function_tool
from pydantic import BaseModel

from prism.core import (
    InMemoryRunLedger,
    SecretRedactor,
    ToolGates,
    ToolPipeline,
    create_static_permission_policy,
)
from prism.core.testing import scaled
from prism.openai_agents import gate_function_tool

from .conftest import Script, call

pytestmark = pytest.mark.anyio

SECRET = "xoxb-0123456789-secret"
ran: list[str] = []


class Weather(BaseModel):
    city: str
    celsius: float


@function_tool
def weather(city: str) -> Weather:
    """The weather in a city."""
    ran.append("weather")
    return Weather(city=city, celsius=21.5)


@function_tool
def token() -> str:
    """A secret token."""
    ran.append("token")
    return f"your token is {SECRET}"


@function_tool
def delete_repo(name: str) -> str:
    """Delete a repository."""
    ran.append("delete_repo")
    return "deleted"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    ran.clear()


async def test_a_denied_tool_never_runs_and_the_ledger_says_so() -> None:
    ledger = InMemoryRunLedger()
    pipeline = ToolPipeline(
        gates=ToolGates(
            permission=create_static_permission_policy(deny=["tool:delete_repo:*"]), ledger=ledger
        )
    )
    tools = [gate_function_tool(t, pipeline) for t in (weather, delete_repo)]
    script = Script([call("delete_repo", "d", name="prism"), call("weather", "w", city="Oslo")])
    with anyio.fail_after(scaled(20)):
        await script.run(tools)
    assert ran == ["weather"]
    assert script.outputs_seen["d"].startswith("Error: Permission denied")
    assert {(r.tool_call_id, r.status) for r in ledger.records} == {
        ("d", "blocked"), ("w", "started"), ("w", "finished"),
    }  # fmt: skip


async def test_the_tools_own_output_reaches_the_model_unchanged() -> None:
    gated = gate_function_tool(weather, ToolPipeline())
    assert gated.name == "weather" and gated.params_json_schema == weather.params_json_schema
    script = Script([call("weather", "w", city="Oslo")])
    with anyio.fail_after(scaled(20)):
        await script.run([gated])
    assert "21.5" in str(script.outputs_seen["w"]) and "Oslo" in str(script.outputs_seen["w"])


async def test_secrets_are_redacted_before_the_model_sees_them() -> None:
    gated = gate_function_tool(
        token, ToolPipeline(gates=ToolGates(redactor=SecretRedactor([SECRET])))
    )
    script = Script([call("token", "t")])
    with anyio.fail_after(scaled(20)):
        await script.run([gated])
    assert ran == ["token"]
    assert SECRET not in str(script.outputs_seen["t"])
    assert "[REDACTED]" in str(script.outputs_seen["t"])


async def test_bad_arguments_are_refused_before_the_tool_sees_them() -> None:
    script = Script([call("weather", "b", "{broken")])
    with anyio.fail_after(scaled(20)):
        await script.run([gate_function_tool(weather, ToolPipeline())])
    assert ran == []
    assert "not valid JSON" in script.outputs_seen["b"]


def test_only_function_tools_and_pipelines_are_accepted() -> None:
    with pytest.raises(TypeError, match=r"gate_function_tool\.tool must be a FunctionTool"):
        gate_function_tool(object(), ToolPipeline())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pipeline"):
        gate_function_tool(weather, object())  # type: ignore[arg-type]
