"""A minimal agent loop: generate, dispatch the turn's tool calls, repeat."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Required, TypedDict, Unpack, final

from . import _backend
from ._abort import NEVER_ABORTED, AbortController, AbortSignal
from ._batch import (
    MAX_ABORT_GRACE_SECONDS,
    LoopOptions,
    dispatch_tool_calls_in_order,
    resolve_tool_concurrency,
)
from ._dispatch_options import DispatchOptions, DispatchSettings
from ._filter import filter_tools
from ._gates import NO_GATES, ToolGates
from ._messages import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    RunResult,
    ToolMessage,
    ToolSpec,
    as_messages,
)
from ._outcomes import blocked_outcome, error_info_from
from ._registry import ToolRegistry
from ._steps import CallUnit, StepHook, check_step_hook
from ._types import ErrorInfo, ToolCall, ToolDefinition, ToolExecutionContext
from ._validation import ToolValidator
from .events import EventSink
from .options import check_callable, check_count, check_instance, check_seconds

__all__ = ["Agent", "AgentSettings", "RunLimits", "RunOptions"]

MAX_TOOL_ROUNDS = 64


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunLimits:
    """How many tool rounds (batches) a run may dispatch; default 8, hard cap 64."""

    max_tool_rounds: int = 8

    def __post_init__(self) -> None:
        check_count("RunLimits.max_tool_rounds", self.max_tool_rounds, cap=MAX_TOOL_ROUNDS)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """Per-run overrides; each set field wins over the agent's (limits may only narrow)."""

    signal: AbortSignal | None = None
    loop: LoopOptions | None = None
    validator: ToolValidator | None = None
    """Checks this run's tool arguments in place of the agent's ``gates.validator``."""
    limits: RunLimits | None = None
    abort_grace_seconds: float = 5.0
    run_id: str | None = None
    """The run's id in events, ledger rows and tool contexts (default: a random one)."""
    step_hook: StepHook | None = None
    """Runs each tool call as a unit of its own (``prism.core.lowlevel``)."""

    def __post_init__(self) -> None:
        where = "RunOptions."
        check_instance(where + "signal", self.signal, AbortSignal, optional=True)
        check_instance(where + "loop", self.loop, LoopOptions, optional=True)
        check_callable(where + "validator", self.validator, optional=True)
        check_instance(where + "limits", self.limits, RunLimits, optional=True)
        grace = self.abort_grace_seconds
        check_seconds(where + "abort_grace_seconds", grace, cap=MAX_ABORT_GRACE_SECONDS)
        check_instance(where + "run_id", self.run_id, str, optional=True)
        if self.run_id == "":
            raise ValueError("RunOptions.run_id must be a non-empty str or None, got ''")
        check_step_hook("RunOptions.step_hook", self.step_hook)


class AgentSettings(TypedDict, total=False):
    """The keyword arguments of ``Agent`` (and of agents built on it, such as a durable one).

    ``provider`` and ``model`` are required; ``session_id`` defaults to a random id; ``gates``
    (the filter also decides which tools the model is offered) default to none.
    """

    provider: Required[Provider]
    model: Required[str]
    tools: Iterable[ToolDefinition] | ToolRegistry
    gates: ToolGates | None
    loop: LoopOptions | None
    limits: RunLimits | None
    session_id: str | None


_SETTINGS = frozenset(AgentSettings.__annotations__)


class Agent:
    """A provider, a tool registry and the dispatch gates, run as a single-shot loop."""

    def __init__(self, **settings: Unpack[AgentSettings]) -> None:
        if not _SETTINGS.issuperset(settings):
            unknown = ", ".join(sorted(settings.keys() - _SETTINGS))
            raise TypeError(
                f"Agent.settings must be known keywords, got unknown settings: {unknown}"
            )
        provider = settings.get("provider")
        if not callable(getattr(provider, "generate", None)):
            rule = "an object with an async generate(request) method"
            raise TypeError(f"Agent.provider must be {rule}, got {provider!r:.200}")
        model = settings.get("model")
        if not isinstance(model, str) or not model:
            error = ValueError if isinstance(model, str) else TypeError
            raise error(f"Agent.model must be a non-empty str, got {model!r:.200}")
        limits = settings.get("limits")
        check_instance("Agent.limits", limits, RunLimits, optional=True)
        gates = settings.get("gates")
        if gates is None:
            gates = NO_GATES
        check_instance("Agent.gates", gates, ToolGates)
        tools = settings.get("tools", ())
        self.provider = settings["provider"]
        self.model = model
        self.registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.gates = gates
        self.loop = settings.get("loop")
        self.limits = limits or RunLimits()
        self.session_id = settings.get("session_id") or os.urandom(16).hex()

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The tools offered to the model (after the agent's filter)."""
        tools = filter_tools(self.registry.list(), self.gates.tool_filter)
        return tuple(
            ToolSpec(name=t.name, description=t.description, parameters=t.parameters) for t in tools
        )

    def _max_rounds(self, options: RunOptions) -> int:
        if options.limits is None:
            return self.limits.max_tool_rounds
        return min(self.limits.max_tool_rounds, options.limits.max_tool_rounds)

    async def run(
        self,
        prompt: str | Sequence[Message],
        *,
        options: RunOptions | None = None,
        emit: EventSink | None = None,
    ) -> RunResult:
        """Run until the model stops asking for tools, the round limit, an abort or a failure.

        Every tool call in the transcript gets exactly one ``ToolMessage``, in call order.
        """
        options = options or RunOptions()
        signal = options.signal or NEVER_ABORTED
        context = ToolExecutionContext(
            session_id=self.session_id,
            run_id=options.run_id or os.urandom(16).hex(),
            tool_call_id="",
            signal=signal,
        )
        gates = self.gates
        if options.validator is not None:
            gates = dataclasses.replace(gates, validator=options.validator)
        settings: DispatchSettings = {
            "registry": self.registry,
            "context": context,
            "gates": gates,
            "emit": emit,
        }
        run = _Run(self, options, settings, as_messages(prompt), signal)
        return await run.loop(self._max_rounds(options))


class _Run:
    """State of one ``Agent.run``."""

    def __init__(
        self,
        agent: Agent,
        options: RunOptions,
        settings: DispatchSettings,
        messages: list[Message],
        signal: AbortSignal,
    ) -> None:
        self.agent = agent
        self.options = options
        self.settings = settings
        self.dispatch = DispatchOptions.of(settings)
        self.messages = messages
        self.signal = signal
        self.concurrency = resolve_tool_concurrency(options.loop, agent.loop)

    def result(self, status: Any, finish: str, error: ErrorInfo | None = None) -> RunResult:
        return RunResult(
            messages=tuple(self.messages), status=status, finish_reason=finish, error=error
        )

    async def loop(self, max_rounds: int) -> RunResult:
        rounds = 0
        specs = self.agent.tool_specs()
        while True:
            if self.signal.aborted:
                return self.result("aborted", "aborted")
            request = ModelRequest(
                model=self.agent.model, messages=tuple(self.messages), tools=specs
            )
            try:
                response = await _generate(self.agent.provider, request, self.signal)
            except Exception as exc:
                return self.result("failed", "error", error_info_from(exc))
            if response is None:
                return self.result("aborted", "aborted")
            calls = tuple(response.tool_calls)
            self.messages.append(AssistantMessage(content=response.content, tool_calls=calls))
            if not calls:
                return self.result("succeeded", "stop")
            if rounds >= max_rounds:
                await self.refuse(calls, max_rounds)
                return self.result("succeeded", "tool_round_limit")
            await self.dispatch_round(calls)
            rounds += 1

    async def dispatch_round(self, calls: tuple[ToolCall, ...]) -> None:
        results = await dispatch_tool_calls_in_order(
            calls,
            tool_concurrency=self.concurrency,
            signal=self.signal,
            abort_grace_seconds=self.options.abort_grace_seconds,
            step_hook=self.options.step_hook,
            **self.settings,
        )
        self.messages.extend(ToolMessage(result=r) for r in results)

    async def refuse(self, calls: tuple[ToolCall, ...], max_rounds: int) -> None:
        """Answer every call of a turn beyond the limit with ``tool_round_limit``."""
        message = f"Tool round limit reached ({max_rounds} rounds); this call was not run"
        hook = self.options.step_hook
        steps = None if hook is None else await hook.open_batch(calls)
        for index, call in enumerate(calls):
            report = self.dispatch.reporter(self.settings.get("context"))
            refuse = functools.partial(blocked_outcome, report, call, "tool_round_limit", message)
            if steps is None:
                result = await refuse()
            else:
                unit = CallUnit(call, index, None, True, report, refuse)
                result = await steps.run(unit)
            self.messages.append(ToolMessage(result=result))


async def _generate(
    provider: Provider, request: ModelRequest, signal: AbortSignal
) -> ModelResponse | None:
    """Ask the provider; ``None`` when the signal aborted first (the request is cancelled)."""
    if signal is NEVER_ABORTED:
        return await provider.generate(request)
    response: list[ModelResponse] = []
    done = AbortController()
    async with _backend.task_group() as group:

        async def watch() -> None:
            await AbortSignal.any(signal, done.signal).wait()
            if not done.signal.aborted:
                scope.cancel()

        group.start_soon(watch)
        async with _backend.move_on_after() as scope:
            response.append(await provider.generate(request))
        done.abort()
    return response[0] if response else None
