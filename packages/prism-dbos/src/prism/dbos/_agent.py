"""Durable agent runs: the run is a DBOS workflow, each model request and tool call a step."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dbos import DBOS, SetWorkflowID, WorkflowHandleAsync
from prism.core import (
    AbortController,
    ErrorInfo,
    MiddlewareRegistry,
    PermissionPolicy,
    Redactor,
    RunLedger,
    ToolCall,
    ToolDefinition,
    ToolFilter,
    ToolRegistry,
    ToolValidator,
    filter_tools,
)
from prism.core._messages import RunStatus
from prism.core.agent import (
    AssistantMessage,
    LoopOptions,
    Message,
    ModelRequest,
    Provider,
    RunLimits,
    RunResult,
    ToolMessage,
    ToolSpec,
)
from prism.core.events import EventSink

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
from ._options import ApprovalOptions, QueueOptions, _check_name
from ._seam import blocked_outcome, error_info_from
from ._toolset import DurableToolset, as_registry, register_toolset

__all__ = ["RUN_WORKFLOW", "DurableAgent", "DurableAgentOptions"]

RUN_WORKFLOW = "prism.dbos.run"
_AGENTS: dict[str, DurableAgent] = {}
_NEVER = AbortController().signal
_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableAgentOptions:
    """What a durable agent is: a provider and model, its tool set and its round limit."""

    provider: Provider
    model: str
    toolset: DurableToolset
    limits: RunLimits
    session_id: str

    def __post_init__(self) -> None:
        if not callable(getattr(self.provider, "generate", None)):
            raise ValueError("provider must have an async generate(request) method")
        if not isinstance(self.model, str) or not self.model:
            raise ValueError(f"model must be a non-empty str, got {self.model!r}")
        if not isinstance(self.limits, RunLimits):
            raise ValueError("limits must be RunLimits")
        _check_name("session_id", self.session_id)


class DurableAgent:
    """``Agent(...).run(...)`` as a DBOS workflow that survives crashes and restarts.

    Every process of the app builds the same agent (same ``name``) before ``DBOS.launch()``;
    launch then resumes unfinished runs from their last finished step, with the same run id.
    """

    def __init__(
        self,
        *,
        name: str,
        provider: Provider,
        model: str,
        tools: Iterable[ToolDefinition] | ToolRegistry = (),
        validator: ToolValidator | None = None,
        permission: PermissionPolicy | None = None,
        middleware: MiddlewareRegistry | None = None,
        loop: LoopOptions | None = None,
        limits: RunLimits | None = None,
        ledger: RunLedger | None = None,
        redactor: Redactor | None = None,
        tool_filter: ToolFilter | Sequence[ToolFilter] | None = None,
        emit: EventSink | None = None,
        approval: ApprovalOptions | None = None,
        queue: QueueOptions | None = None,
        session_id: str | None = None,
        abort_grace_seconds: float = 5.0,
    ) -> None:
        toolset = DurableToolset(
            name=name, tools=as_registry(tools), tool_filter=tool_filter, middleware=middleware,
            permission=permission, validator=validator, emit=emit, ledger=ledger,
            redactor=redactor, approval=approval, queue=queue,
            tool_concurrency=loop.tool_concurrency if loop is not None else 1,
            abort_grace_seconds=abort_grace_seconds,
        )  # fmt: skip
        self.options = DurableAgentOptions(
            provider=provider, model=model, toolset=toolset, limits=limits or RunLimits(),
            session_id=session_id or name,
        )  # fmt: skip
        register_toolset(toolset)
        with _LOCK:
            _AGENTS[name] = self

    @property
    def name(self) -> str:
        """The name recorded in every run (and the name of its tool set)."""
        return self.options.toolset.name

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The tools offered to the model (after the agent's filter)."""
        ts = self.options.toolset
        tools = filter_tools(ts.tools.list(), ts.tool_filter)
        return tuple(
            ToolSpec(name=t.name, description=t.description, parameters=t.parameters) for t in tools
        )

    async def start(self, prompt: str | Sequence[Message], *, run_id: str | None = None) -> str:
        """Start a run (or attach to the existing run ``run_id``); returns the run id."""
        require_asyncio("DurableAgent.start")
        run_id = run_id or os.urandom(16).hex()
        _check_name("run_id", run_id)
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
    with _LOCK:
        agent = _AGENTS.get(name)
    if agent is None:
        raise LookupError(
            f"no durable agent named {name!r} in this process; build it before DBOS.launch()"
        )
    return agent


@DBOS.workflow(name=RUN_WORKFLOW)
async def _run_workflow(agent_name: str, encoded: list[Plain]) -> Plain:
    """The run: generate (a step), dispatch the turn durably, repeat; ends like ``Agent.run``."""
    agent = agent_named(agent_name)
    opts = agent.options
    messages = decode_messages(encoded)
    max_rounds = opts.limits.max_tool_rounds
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
            calls, toolset=opts.toolset, session_id=opts.session_id
        )
        messages.extend(ToolMessage(result=r) for r in results)
        rounds += 1


def _result(
    messages: list[Message], status: RunStatus, finish: str, error: ErrorInfo | None = None
) -> RunResult:
    return RunResult(messages=tuple(messages), status=status, finish_reason=finish, error=error)


async def _generate(agent_name: str, encoded: list[Plain]) -> Plain:
    """Step: one model request; a provider failure is recorded as the run's error."""
    agent = agent_named(agent_name)
    opts = agent.options
    request = ModelRequest(
        model=opts.model, messages=tuple(decode_messages(encoded)), tools=agent.tool_specs()
    )
    try:
        response = await opts.provider.generate(request)
    except Exception as exc:
        info = error_info_from(exc)
        return {"error": {"message": info.message, "code": info.code, "name": info.name}}
    return {"response": encode_response(response)}


async def _refuse(agent_name: str, calls: list[Plain]) -> list[Plain]:
    """Step: answer every call of a turn beyond the round limit with ``tool_round_limit``."""
    opts = agent_named(agent_name).options
    ts = opts.toolset
    message = (
        f"Tool round limit reached ({opts.limits.max_tool_rounds} rounds); this call was not run"
    )
    out: list[Plain] = []
    for data in calls:
        call: ToolCall = decode_call(data)
        context = ts.context(opts.session_id, DBOS.workflow_id or "", call.id, _NEVER)
        report = ts.dispatch_options(context).reporter(context)
        out.append(encode_result(await blocked_outcome(report, call, "tool_round_limit", message)))
    return out
