"""Every threat row whose subject is dispatch, a batch or the agent loop, against a durable host.

The rows prism-dbos owns (E13–E15) run as they are (each starts its own DBOS processes). The
other rows run with ``dispatch`` and ``dispatch_batch`` replaced by durable batches: each call
is a DBOS workflow on a SQLite file, launched once for this module, running
``durable_dispatch_tool_calls_in_order`` over a ``DurableToolset`` of the row's gates. Rows
that do not apply, and why, are listed in docs/durable.md ("Conformance"). asyncio only: DBOS
drives its workflows on asyncio (on trio the rows report "skipped" by design).

Not marked ``slow``: the README's local command (``pytest -m "not slow"``) runs them too.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from dbos import DBOS, SetWorkflowID

from prism.conformance import ConformanceSubjects, default_subjects, make_conformance_tests
from prism.core import AbortSignal, ToolCall, ToolGates, ToolRegistry, ToolResult
from prism.core.agent import RunResult
from prism.core.events import EventSink
from prism.dbos import (
    DurableAgent,
    DurableToolset,
    durable_dispatch_tool_calls_in_order,
    register_toolset,
)
from prism.dbos.codec import Plain, decode_call, decode_result, encode_call, encode_result

NOT_DURABLE_ROWS = "9,10,E8,E9"
"""Rows with no dispatch, batch or agent loop in them (the MCP client's own bridge calls):
nothing a durable host changes. E13–E15 are prism-dbos's own rows (``test_conformance``)."""

_SIGNALS: dict[str, AbortSignal | None] = {}
_LOCK = threading.Lock()


@DBOS.workflow(name="prism.test.conformance_batch")
async def _batch_workflow(toolset: str, encoded: list[Plain]) -> list[Plain]:
    """A durable host's turn: the calls through prism-dbos, results as recorded."""
    with _LOCK:
        signal = _SIGNALS.get(DBOS.workflow_id or "")
    calls = [decode_call(call) for call in encoded]
    results = await durable_dispatch_tool_calls_in_order(
        calls, toolset=toolset, session_id="conformance", signal=signal
    )
    return [encode_result(result) for result in results]


async def durable_batch(
    calls: Sequence[ToolCall],
    *,
    registry: Any,
    tool_concurrency: int = 1,
    signal: AbortSignal | None = None,
    abort_grace_seconds: float = 5.0,
    context: Any = None,
    gates: ToolGates | None = None,
    emit: Any = None,
) -> tuple[ToolResult, ...]:
    """Like ``dispatch_tool_calls_in_order``, run as one durable turn in its own workflow
    (a fresh tool set of the given gates; ``signal`` reaches the turn through ``_SIGNALS``)."""
    run = f"conformance-{os.urandom(8).hex()}"
    tools = registry if isinstance(registry, ToolRegistry) else ToolRegistry(registry)
    if signal is None and context is not None:
        signal = context.signal
    toolset = DurableToolset(
        name=run,
        tools=tools,
        gates=gates or ToolGates(),
        emit=emit,
        tool_concurrency=tool_concurrency,
        abort_grace_seconds=abort_grace_seconds,
    )
    register_toolset(toolset)
    with _LOCK:
        _SIGNALS[run] = signal
    try:
        with SetWorkflowID(run):
            recorded = await _batch_workflow(run, [encode_call(call) for call in calls])
    finally:
        with _LOCK:
            _SIGNALS.pop(run, None)
    return tuple(decode_result(result) for result in recorded)


class DurableHostAgent:
    """Like ``prism.core.agent.Agent``: each ``run`` is a fresh ``DurableAgent``'s run."""

    def __init__(self, **settings: Any) -> None:
        self.settings = settings

    async def run(self, prompt: str, *, emit: EventSink | None = None) -> RunResult:
        """The durable run's result (``emit`` receives its events)."""
        name = f"conformance-agent-{os.urandom(8).hex()}"
        return await DurableAgent(name=name, emit=emit, **self.settings).run(prompt)


async def durable_dispatch(call: ToolCall, **settings: Any) -> ToolResult:
    """Like ``dispatch_tool_call``: a one-call durable turn."""
    (result,) = await durable_batch([call], **settings)
    return result


@pytest.fixture
def prism_conformance_subjects(durable_host: None) -> ConformanceSubjects:
    """The first-party subjects with a durable host's dispatch and batches."""
    return dataclasses.replace(
        default_subjects(),
        dispatch=durable_dispatch,
        dispatch_batch=durable_batch,
        agent_factory=DurableHostAgent,
    )


test_conformance = make_conformance_tests(package="prism-dbos", backends=("asyncio",))
test_durable_host_conformance = make_conformance_tests(
    exclude=f"{NOT_DURABLE_ROWS},E13,E14,E15", backends=("asyncio",)
)
