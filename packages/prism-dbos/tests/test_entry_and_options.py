"""Entry checks (asyncio only, inside a workflow), option validation and the step codec."""

from __future__ import annotations

import asyncio
from types import MappingProxyType
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    ErrorInfo,
    ImageContent,
    ResourceLinkContent,
    TextContent,
    ToolCall,
    ToolFilter,
    ToolRegistry,
    ToolResult,
)
from prism.core.agent import (
    Agent,
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    ToolMessage,
    UserMessage,
)
from prism.dbos import (
    ApprovalOptions,
    DbosBackendOptions,
    DurableAgent,
    DurableBackendError,
    DurableToolset,
    QueueOptions,
    durable_dispatch_tool_calls_in_order,
)
from prism.dbos.codec import (
    decode_messages,
    decode_result,
    encode_messages,
    encode_result,
)


class _Provider:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse()


def _agent() -> DurableAgent:
    return DurableAgent(name="entry-agent", provider=_Provider(), model="m")


def test_a_durable_agent_is_a_core_agent_with_its_name_as_session() -> None:
    registry = ToolRegistry([])
    agent = DurableAgent(name="entry-reuse", provider=_Provider(), model="m", tools=registry)
    core = agent.options.agent
    assert isinstance(core, Agent)
    assert (core.session_id, core.model, core.registry) == ("entry-reuse", "m", registry)
    assert agent.options.toolset.tools is registry
    named = DurableAgent(name="entry-reuse-2", provider=_Provider(), model="m", session_id="s")
    assert named.options.agent.session_id == "s"


def test_a_durable_agent_refuses_what_an_agent_refuses() -> None:
    with pytest.raises(ValueError, match=r"Agent\.model"):
        DurableAgent(name="entry-bad", provider=_Provider(), model="")
    with pytest.raises(TypeError, match="unknown settings: tool"):
        DurableAgent(name="entry-bad", provider=_Provider(), model="m", tool=[])  # type: ignore[call-arg]


def test_starting_a_run_on_trio_fails_with_a_clear_error() -> None:
    agent = _agent()
    with pytest.raises(DurableBackendError, match="asyncio only"):
        trio.run(agent.start, "hi")


def test_durable_dispatch_on_trio_fails_with_a_clear_error() -> None:
    async def go() -> None:
        await durable_dispatch_tool_calls_in_order([], toolset="entry-agent")

    _agent()
    with pytest.raises(DurableBackendError, match="trio"):
        trio.run(go)


def test_durable_dispatch_outside_a_workflow_is_refused() -> None:
    _agent()
    with pytest.raises(DurableBackendError, match="inside a DBOS workflow"):
        asyncio.run(durable_dispatch_tool_calls_in_order([], toolset="entry-agent"))


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: DbosBackendOptions(app_name="a b", database_url="sqlite:///x"), "app_name"),
        (lambda: DbosBackendOptions(app_name="a", database_url="mysql://x"), "database_url"),
        (lambda: DbosBackendOptions(app_name="a", database_url="sqlite:///x", executor_id=""),
         "executor_id"),
        (lambda: DbosBackendOptions(app_name="a", database_url="sqlite:///x",
                                    notification_poll_seconds=0), "notification_poll_seconds"),
        (lambda: ApprovalOptions(), "side_effects must be True when tools is None"),
        (lambda: ApprovalOptions(side_effects=True, timeout_seconds=0), "timeout_seconds"),
        (lambda: ApprovalOptions(side_effects=True, timeout_seconds=float("nan")),
         "timeout_seconds"),
        (lambda: ApprovalOptions(tools=["x"]), "tools"),  # type: ignore[arg-type]
        (lambda: QueueOptions(name=""), "name"),
        (lambda: QueueOptions(global_concurrency=0), "global_concurrency"),
        (lambda: QueueOptions(worker_concurrency=True), "worker_concurrency"),
        (lambda: QueueOptions(polling_interval_seconds=0), "polling_interval_seconds"),
        (lambda: DurableToolset(name="t", tools=ToolRegistry([]), tool_concurrency=0),
         "tool_concurrency"),
        (lambda: DurableToolset(name="t", tools=[]), "tools"),  # type: ignore[arg-type]
        (lambda: DurableToolset(name="t", tools=ToolRegistry([]), abort_grace_seconds=0),
         r"DurableToolset\.abort_grace_seconds must be a finite number of seconds above 0"),
        (lambda: QueueOptions(polling_interval_seconds=0.001),
         r"QueueOptions\.polling_interval_seconds must be .* from 0\.01"),
    ],
)  # fmt: skip
def test_bad_options_name_the_field(build: Any, field: str) -> None:
    with pytest.raises((TypeError, ValueError), match=field) as raised:
        build()
    # A value of the wrong type is a TypeError, a bad value of the right type a ValueError.
    wrong_type = field in ("tools", "worker_concurrency")
    assert isinstance(raised.value, TypeError if wrong_type else ValueError), raised.value
    assert isinstance(raised.value, TypeError) is wrong_type


def test_approval_covers_named_tools_and_unhinted_side_effects() -> None:
    from prism.core.functions import tool

    @tool(read_only=True)
    def look(x: str) -> str:
        """Look."""
        return x

    @tool
    def act(x: str) -> str:
        """Act."""
        return x

    by_name = ApprovalOptions(tools=ToolFilter(allow=["deploy*"]))
    assert by_name.needs_approval("deploy-prod", None)
    assert not by_name.needs_approval("look", look)
    effects = ApprovalOptions(side_effects=True)
    assert effects.needs_approval("act", act)
    assert not effects.needs_approval("look", look)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(value=_json, text=st.text(max_size=20), code=st.none() | st.text(max_size=5))
def test_results_survive_the_step_codec(value: Any, text: str, code: str | None) -> None:
    result = ToolResult(
        tool_call_id="c", name="t",
        content=(TextContent(text=text), ImageContent(data="aGk=", mime_type="image/png"),
                 ResourceLinkContent(uri="file:///x", name="x")),
        value=value,
        error=ErrorInfo(message=text, code=code),
        metadata=MappingProxyType({"k": 1}),
    )  # fmt: skip
    back = decode_result(encode_result(result))
    assert back.content == result.content and back.error == result.error
    assert back.value == value and dict(back.metadata) == {"k": 1}


def test_transcripts_survive_the_step_codec() -> None:
    call = ToolCall(id="1", name="t", arguments={"a": [1, 2]})
    messages = [
        UserMessage(content="hi"),
        UserMessage(content=(TextContent(text="block"),)),
        AssistantMessage(content=(TextContent(text="x"),), tool_calls=(call,)),
        ToolMessage(result=ToolResult(tool_call_id="1", name="t", value={"ok": True})),
    ]
    back = decode_messages(encode_messages(messages))
    assert back[:3] == messages[:3]
    assert isinstance(back[3], ToolMessage) and back[3].result.value == {"ok": True}
