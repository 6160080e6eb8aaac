"""Keyword dispatch holds the options it unpacks from a ``ToolGates`` on the gates and reuses
them while the same registry and sink come with them: every call must still go to its own
registry, events to its own sink and ledger rows to the gates' ledger."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    InMemoryRunLedger,
    JsonObject,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.events import AgentEvent


@dataclass(eq=False)
class _Sink:
    """A sink whose ``==`` says every sink is the same one: they are still separate sinks."""

    events: list[AgentEvent] = field(default_factory=list)

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


def _registry(label: str) -> ToolRegistry:
    async def which(arguments: JsonObject, context: ToolExecutionContext) -> str:
        return label

    return ToolRegistry([ToolDefinition(name="which", execute=which, parameters={})])


def _text(result: ToolResult) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


REGISTRIES = tuple(_registry(label) for label in "ab")


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 1),
            st.integers(0, 2),
            st.sampled_from(["object", "bound", "none"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_each_keyword_call_uses_its_own_registry_sink_and_gates(
    backend: str, plan: list[tuple[int, int, str, bool]]
) -> None:
    """Whatever mix of registries, equal-looking sinks and gates comes in, each call answers
    from its registry and reports to its sink and its gates' ledger, never to the last one."""
    ledgers = [InMemoryRunLedger() for _ in range(2)]
    gates = [ToolGates(ledger=ledger) for ledger in ledgers]
    sinks = [_Sink(), _Sink(), _Sink()]
    lists: list[list[AgentEvent]] = [[], [], []]
    expected_rows = [0, 0]

    async def run() -> None:
        for n, (reg, sink, kind, batch) in enumerate(plan):
            g = n % 2
            emit = {"object": sinks[sink], "bound": lists[sink].append, "none": None}[kind]
            call = ToolCall(id=f"c{n}", name="which", arguments={})
            if batch:
                results = await dispatch_tool_calls_in_order(
                    [call], registry=REGISTRIES[reg], gates=gates[g], emit=emit
                )
                result = results[0]
            else:
                result = await dispatch_tool_call(
                    call, registry=REGISTRIES[reg], gates=gates[g], emit=emit
                )
            assert _text(result) == "ab"[reg]
            expected_rows[g] += 2
            if kind == "object":
                assert sinks[sink].events[-1].call.id == call.id
            elif kind == "bound":
                assert lists[sink][-1].call.id == call.id

    anyio.run(run, backend=backend)
    for g, ledger in enumerate(ledgers):
        assert len(ledger.records) == expected_rows[g]
    every = [e.call.id for s in sinks for e in s.events] + [
        e.call.id for events in lists for e in events
    ]
    assert len(every) == len(set(every)) * 2  # started and finished, each in one sink only
