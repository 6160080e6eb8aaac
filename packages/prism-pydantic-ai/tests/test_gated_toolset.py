"""Prism's gates around a pydantic-ai toolset the user already has (real FunctionToolset)."""

from __future__ import annotations

import anyio
import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.toolsets import FunctionToolset

from prism.core import (
    InMemoryRunLedger,
    SecretRedactor,
    ToolFilter,
    ToolGates,
    ToolPipeline,
    create_static_permission_policy,
)
from prism.core.testing import scaled
from prism.pydantic_ai import PrismGatedToolset

from .conftest import Script, call

pytestmark = pytest.mark.anyio

SECRET = "ghp_0123456789abcdefXYZ"


class Weather(BaseModel):
    city: str
    celsius: float


def _toolset(ran: list[str]) -> FunctionToolset[None]:
    toolset: FunctionToolset[None] = FunctionToolset()

    @toolset.tool_plain
    def weather(city: str) -> Weather:
        ran.append("weather")
        return Weather(city=city, celsius=21.5)

    @toolset.tool_plain
    def token() -> str:
        ran.append("token")
        return f"your token is {SECRET}"

    @toolset.tool_plain
    def delete_repo(name: str) -> str:
        ran.append("delete_repo")
        return "deleted"

    @toolset.tool_plain(retries=1)
    def flaky(n: int) -> str:
        ran.append("flaky")
        if n < 0:
            raise ModelRetry("n must be positive")
        return "fine"

    return toolset


async def test_a_denied_tool_of_an_existing_toolset_never_runs() -> None:
    ran: list[str] = []
    ledger = InMemoryRunLedger()
    gated = PrismGatedToolset(
        _toolset(ran),
        pipeline=ToolPipeline(
            gates=ToolGates(
                permission=create_static_permission_policy(deny=["tool:delete_repo:*"]),
                ledger=ledger,
            )
        ),
    )
    script = Script([call("delete_repo", "d", name="prism"), call("weather", "w", city="Oslo")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[gated]).run("go")
    assert ran == ["weather"]
    assert "Permission denied" in str(script.returns["d"])
    assert {(r.tool_call_id, r.status) for r in ledger.records} == {
        ("d", "blocked"), ("w", "started"), ("w", "finished"),
    }  # fmt: skip


async def test_the_tools_own_return_value_reaches_the_model_unchanged() -> None:
    ran: list[str] = []
    gated = PrismGatedToolset(_toolset(ran), pipeline=ToolPipeline())
    script = Script([call("weather", "w", city="Oslo")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[gated]).run("go")
    assert script.returns["w"] == Weather(city="Oslo", celsius=21.5)


async def test_secrets_in_a_wrapped_tools_result_are_redacted_before_the_model_sees_them() -> None:
    ran: list[str] = []
    gated = PrismGatedToolset(
        _toolset(ran), pipeline=ToolPipeline(gates=ToolGates(redactor=SecretRedactor([SECRET])))
    )
    script = Script([call("token", "t")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[gated]).run("go")
    assert ran == ["token"]
    assert SECRET not in str(script.returns["t"])
    assert "[REDACTED]" in str(script.returns["t"])


async def test_model_retry_from_a_wrapped_tool_keeps_its_pydantic_ai_meaning() -> None:
    ran: list[str] = []
    gated = PrismGatedToolset(_toolset(ran), pipeline=ToolPipeline())
    script = Script([call("flaky", "f1", n=-1)], [call("flaky", "f2", n=1)])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[gated]).run("go")
    assert script.retries["f1"] == "n must be positive"
    assert script.returns["f2"] == "fine"


async def test_the_filter_hides_tools_from_the_model() -> None:
    ran: list[str] = []
    gated = PrismGatedToolset(
        _toolset(ran),
        pipeline=ToolPipeline(gates=ToolGates(tool_filter=ToolFilter(allow=("weather",)))),
    )
    script = Script([call("weather", "w", city="Rome")])
    with anyio.fail_after(scaled(20)):
        await Agent(script.model(), toolsets=[gated]).run("go")
    assert script.offered[0] == ["weather"]


def test_a_non_toolset_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"PrismGatedToolset\.wrapped must be"):
        PrismGatedToolset(object())  # type: ignore[arg-type]
