"""Durable agent runs: the run is a DBOS workflow, each model request and tool call a step."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Unpack

from dbos import DBOS, SetWorkflowID, WorkflowHandleAsync
from prism.core import ErrorInfo, ToolCall
from prism.core.agent import (
    Agent,
    AgentSettings,
    AssistantMessage,
    Message,
    ModelRequest,
    RunResult,
    RunStatus,
    ToolMessage,
    resolve_tool_concurrency,
)
from prism.core.events import EventSink
from prism.core.lowlevel import NEVER_ABORTED, error_info_from
from prism.core.options import check_match

from ._batch import durable_dispatch_tool_calls_in_order
from ._codec import (
    Plain,
    decode_call,
    decode_messages,
    decode_response,
    decode_result,
    decode_run,
    encode_call,
    encode_messages,
    encode_response,
    encode_result,
    encode_run,
)
from ._guard import require_asyncio
from ._options import NAME_PATTERN, ApprovalOptions, QueueOptions
from ._toolset import DurableToolset, NameTable, register_toolset

__all__ = ["RUN_WORKFLOW", "DurableAgent", "DurableAgentOptions"]

RUN_WORKFLOW = "prism.dbos.run"


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableAgentOptions:
    """What a durable agent is: a core ``Agent`` (provider, model, gates, limits, session id)
    and the durable tool set built from it."""

    agent: Agent
    toolset: DurableToolset

    def __post_init__(self) -> None:
        if not isinstance(self.agent, Agent):
            raise ValueError(f"DurableAgentOptions.agent must be an Agent, got {self.agent!r}")
        if not isinstance(self.toolset, DurableToolset):
            raise ValueError("DurableAgentOptions.toolset must be a DurableToolset")


class DurableAgent:
    """``Agent(...).run(...)`` as a DBOS workflow that survives crashes and restarts.

    Takes ``Agent``'s settings plus a ``name``; ``session_id`` defaults to the name (a random one
    would differ between processes). Every process of the app builds the same agent (same
    ``name``) before ``DBOS.launch()``; launch then resumes unfinished runs from their last
    finished step, with the same run id.
    """

    def __init__(
        self,
        *,
        name: str,
        emit: EventSink | None = None,
        approval: ApprovalOptions | None = None,
        queue: QueueOptions | None = None,
        abort_grace_seconds: float = 5.0,
        **settings: Unpack[AgentSettings],
    ) -> None:
        check_match("DurableAgent.name", name, NAME_PATTERN)
        if not settings.get("session_id"):
            settings["session_id"] = name
        check_match("DurableAgent.session_id", settings["session_id"], NAME_PATTERN)
        agent = Agent(**settings)
        toolset = DurableToolset(
            name=name, tools=agent.registry, tool_filter=agent.tool_filter,
            middleware=agent.middleware, permission=agent.permission, validator=agent.validator,
            emit=emit, ledger=agent.ledger, redactor=agent.redactor, approval=approval,
            queue=queue, tool_concurrency=resolve_tool_concurrency(None, agent.loop),
            abort_grace_seconds=abort_grace_seconds,
        )  # fmt: skip
        self.options = DurableAgentOptions(agent=agent, toolset=toolset)
        register_toolset(toolset)
        _AGENTS.put(name, self)

    @property
    def name(self) -> str:
        """The name recorded in every run (and the name of its tool set)."""
        return self.options.toolset.name

    async def start(self, prompt: str | Sequence[Message], *, run_id: str | None = None) -> str:
        """Start a run (or attach to the existing run ``run_id``); returns the run id."""
        require_asyncio("DurableAgent.start")
        run_id = run_id or os.urandom(16).hex()
        check_match("DurableAgent.start run_id", run_id, NAME_PATTERN)
        messages = [{"role": "user", "text": prompt, "content": []}] if isinstance(
            prompt, str
        ) else encode_messages(list(prompt))  # fmt: skip
        with SetWorkflowID(run_id):
            await DBOS.start_workflow_async(_run_workflow, self.name, messages)
        return run_id

    async def result(self, run_id: str) -> RunResult:
        """Wait for run ``run_id`` (started here or in any process) and return its result."""
        require_asyncio("DurableAgent.result")
        handle: WorkflowHandleAsync[Plain] = await DBOS.retrieve_workflow_async(run_id)
        outcome: Plain = await handle.get_result()
        return decode_run(outcome)

    async def run(self, prompt: str | Sequence[Message], *, run_id: str | None = None) -> RunResult:
        """Start a run and wait for its result."""
        return await self.result(await self.start(prompt, run_id=run_id))


def agent_named(name: str) -> DurableAgent:
    """The agent registered as ``name`` in this process."""
    return _AGENTS.get(name)


def _unknown_agent(name: str) -> LookupError:
    return LookupError(
        f"no durable agent named {name!r} in this process; build it before DBOS.launch()"
    )


_AGENTS = NameTable[DurableAgent](_unknown_agent)


@DBOS.workflow(name=RUN_WORKFLOW)
async def _run_workflow(agent_name: str, encoded: list[Plain]) -> Plain:
    """The run: generate (a step), dispatch the turn durably, repeat; ends like ``Agent.run``."""
    agent = agent_named(agent_name)
    opts = agent.options
    messages = decode_messages(encoded)
    max_rounds = opts.agent.limits.max_tool_rounds
    rounds = 0
    while True:
        outcome: Plain = await DBOS.run_step_async(
            {"name": "prism.model"}, _generate, agent_name, encode_messages(messages)
        )
        if outcome.get("error") is not None:
            error = ErrorInfo(**outcome["error"])
            return encode_run(_result(messages, "failed", "error", error))
        response = decode_response(outcome["response"])
        calls = tuple(response.tool_calls)
        messages.append(AssistantMessage(content=response.content, tool_calls=calls))
        if not calls:
            return encode_run(_result(messages, "succeeded", "stop"))
        if rounds >= max_rounds:
            refused: list[Plain] = await DBOS.run_step_async(
                {"name": "prism.refuse"}, _refuse, agent_name, [encode_call(c) for c in calls]
            )
            messages.extend(ToolMessage(result=decode_result(r)) for r in refused)
            return encode_run(_result(messages, "succeeded", "tool_round_limit"))
        results = await durable_dispatch_tool_calls_in_order(
            calls, toolset=opts.toolset, session_id=opts.agent.session_id
        )
        messages.extend(ToolMessage(result=r) for r in results)
        rounds += 1


def _result(
    messages: list[Message], status: RunStatus, finish: str, error: ErrorInfo | None = None
) -> RunResult:
    return RunResult(messages=tuple(messages), status=status, finish_reason=finish, error=error)


async def _generate(agent_name: str, encoded: list[Plain]) -> Plain:
    """Step: one model request; a provider failure is recorded as the run's error."""
    core = agent_named(agent_name).options.agent
    request = ModelRequest(
        model=core.model, messages=tuple(decode_messages(encoded)), tools=core.tool_specs()
    )
    try:
        response = await core.provider.generate(request)
    except Exception as exc:
        info = error_info_from(exc)
        return {"error": {"message": info.message, "code": info.code, "name": info.name}}
    return {"response": encode_response(response)}


async def _refuse(agent_name: str, calls: list[Plain]) -> list[Plain]:
    """Step: answer every call of a turn beyond the round limit with ``tool_round_limit``."""
    opts = agent_named(agent_name).options
    ts = opts.toolset
    message = (
        f"Tool round limit reached ({opts.agent.limits.max_tool_rounds} rounds); this call was "
        "not run"
    )
    out: list[Plain] = []
    for data in calls:
        call: ToolCall = decode_call(data)
        context = ts.context(opts.agent.session_id, DBOS.workflow_id or "", call.id, NEVER_ABORTED)
        out.append(encode_result(await ts.unit(call, context).block("tool_round_limit", message)))
    return out
