"""Shared fixtures for prism-core tests: a side-effect canary and an event recorder."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from prism.core import ToolDefinition, ToolExecutionContext
from prism.core.events import AgentEvent


class Canary:
    """Counts handler entries: proof that a handler did (or did not) run."""

    def __init__(self) -> None:
        self.entered: list[str] = []
        self._lock = threading.Lock()

    def tool(self, name: str = "echo", **kwargs: Any) -> ToolDefinition:
        async def execute(args: Any, ctx: ToolExecutionContext) -> str:
            with self._lock:
                self.entered.append(ctx.tool_call_id)
            return f"{name} ran"

        return ToolDefinition(name=name, execute=execute, **kwargs)


class Events:
    """An event sink that records every event."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def types(self, call_id: str | None = None) -> list[str]:
        return [e.type for e in self.events if call_id is None or e.call.id == call_id]


@pytest.fixture
def canary() -> Canary:
    return Canary()


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def sleep() -> Callable[[float], Any]:
    from prism.core._backend import sleep as backend_sleep

    return backend_sleep
