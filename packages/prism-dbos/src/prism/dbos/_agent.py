"""Durable agent runs: the run is a DBOS workflow, each model request and tool call a step."""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Unpack, final

from dbos import DBOS, SetWorkflowID, WorkflowHandleAsync
from prism.core import ErrorInfo
from prism.core.agent import (
    Agent,
    AgentSettings,
    Message,
    ModelRequest,
    ModelResponse,
    RunOptions,
    RunResult,
    resolve_tool_concurrency,
)
from prism.core.events import EventSink
from prism.core.lowlevel import NEVER_ABORTED, error_info_from
from prism.core.options import check_instance, check_match

from ._codec import (
    Plain,
    decode_messages,
    decode_response,
    decode_run,
    encode_messages,
    encode_response,
    encode_run,
)
from ._guard import require_asyncio
from ._hook import DurableSteps
from ._ledger import KeyedLedger
from ._options import NAME_PATTERN, ApprovalOptions, QueueOptions
from ._toolset import DurableToolset, NameTable, register_toolset

__all__ = ["RUN_WORKFLOW", "DurableAgent", "DurableAgentOptions"]

RUN_WORKFLOW = "prism.dbos.run"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DurableAgentOptions:
    """What a durable agent is: a core ``Agent`` (provider, model, gates, limits, session id)
    and the durable tool set built from it."""

    agent: Agent
    toolset: DurableToolset

    def __post_init__(self) -> None:
        check_instance("DurableAgentOptions.agent", self.agent, Agent)
        check_instance("DurableAgentOptions.toolset", self.toolset, DurableToolset)


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
            name=name, tools=agent.registry, gates=agent.gates, emit=emit, approval=approval,
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
        return (await self._start(prompt, run_id)).get_workflow_id()

    async def _start(
        self, prompt: str | Sequence[Message], run_id: str | None
    ) -> WorkflowHandleAsync[Plain]:
        run_id = run_id or os.urandom(16).hex()
        check_match("DurableAgent.start run_id", run_id, NAME_PATTERN)
        messages = [{"role": "user", "text": prompt, "content": []}] if isinstance(
            prompt, str
        ) else encode_messages(list(prompt))  # fmt: skip
        with SetWorkflowID(run_id):
            return await DBOS.start_workflow_async(_run_workflow, self.name, messages)

    async def result(self, run_id: str) -> RunResult:
        """Wait for run ``run_id`` (started here or in any process) and return its result."""
        require_asyncio("DurableAgent.result")
        handle: WorkflowHandleAsync[Plain] = await DBOS.retrieve_workflow_async(run_id)
        outcome: Plain = await handle.get_result()
        return decode_run(outcome)

    async def run(self, prompt: str | Sequence[Message], *, run_id: str | None = None) -> RunResult:
        """Start a run and wait for its result (on the started run itself: ``result`` polls
        the database, once a second)."""
        require_asyncio("DurableAgent.run")
        handle = await self._start(prompt, run_id)
        outcome: Plain = await handle.get_result()
        return decode_run(outcome)


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
    """The run: core's agent loop, with each model request a step and prism-dbos as the step
    hook of every tool call (ends like ``Agent.run``)."""
    opts = agent_named(agent_name).options
    run_id = DBOS.workflow_id or ""
    loop = copy.copy(opts.agent)
    provider = _RecordedProvider(agent_name)
    loop.provider = provider
    ledger = opts.agent.gates.ledger
    if ledger is not None:
        loop.gates = dataclasses.replace(opts.agent.gates, ledger=KeyedLedger(ledger))
    # the model step that produced a turn's calls is their at-most-once record (docs/durable.md)
    hook = DurableSteps(
        opts.toolset, opts.agent.session_id, run_id, NEVER_ABORTED, lambda: provider.fresh
    )
    options = RunOptions(
        run_id=run_id, step_hook=hook, abort_grace_seconds=opts.toolset.abort_grace_seconds
    )
    result = await loop.run(decode_messages(encoded), options=options, emit=opts.toolset.emit)
    return encode_run(result)


class _RecordedProvider:
    """The agent's provider with each request recorded as a step (a replay asks nothing);
    ``fresh`` tells whether the last one ran in this attempt or was replayed."""

    def __init__(self, agent_name: str) -> None:
        self.agent_name = agent_name
        self.fresh: bool | None = None

    async def generate(self, request: ModelRequest) -> ModelResponse:
        messages = encode_messages(list(request.messages))
        ran: list[bool] = []

        async def step(name: str, encoded: list[Plain]) -> Plain:
            ran.append(True)  # not replayed: no earlier attempt got past this request
            return await _generate(name, encoded)

        self.fresh = None
        outcome: Plain = await DBOS.run_step_async(
            {"name": "prism.model"}, step, self.agent_name, messages
        )
        self.fresh = bool(ran)
        if outcome.get("error") is not None:
            raise _recorded_failure(ErrorInfo(**outcome["error"]))
        return decode_response(outcome["response"])


def _recorded_failure(info: ErrorInfo) -> Exception:
    """An exception core's loop describes as ``info`` again (same name, message and code)."""
    kind = type(info.name or "ProviderError", (Exception,), {})
    failure: Exception = kind(info.message)
    failure.code = info.code  # type: ignore[attr-defined]
    return failure


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
