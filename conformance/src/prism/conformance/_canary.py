"""Canaries: side effects that prove a handler (or a command) never ran.

In the threat matrix (docs/threats.md) "handler not invoked" is proven by the absence of a
``tool_execution_started`` event **and** an untouched canary. These helpers give every row
(and downstream CI) both.
"""

from __future__ import annotations

import inspect
import os
import shlex
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from prism.core import JsonObject, ToolDefinition, ToolExecutionContext, ToolHandler, ToolResult

__all__ = ["Canary", "EventRecorder", "FileCanary", "assert_not_invoked", "canary_tool"]


class Canary:
    """A thread-safe side-effect counter: wrap a handler with it, then assert how often it ran."""

    __slots__ = ("_count", "_lock", "arguments", "name")

    def __init__(self, name: str = "handler") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._count = 0
        self.arguments: list[JsonObject] = []
        """The arguments of every recorded hit, in order."""

    @property
    def count(self) -> int:
        """How many times the canary was hit."""
        return self._count

    def hit(self, arguments: JsonObject | None = None) -> None:
        """Record one side effect."""
        with self._lock:
            self._count += 1
            if arguments is not None:
                self.arguments.append(arguments)

    def wrap(self, handler: ToolHandler) -> ToolHandler:
        """``handler`` with a hit recorded before it runs; a sync handler stays sync."""
        if inspect.iscoroutinefunction(handler):

            async def async_wrapper(args: JsonObject, ctx: ToolExecutionContext) -> Any:
                self.hit(args)
                return await handler(args, ctx)

            return async_wrapper

        def sync_wrapper(args: JsonObject, ctx: ToolExecutionContext) -> Any:
            self.hit(args)
            return handler(args, ctx)

        return sync_wrapper

    def assert_untouched(self, why: str) -> None:
        """Raise ``AssertionError`` if the canary was hit; ``why`` says why it must not be."""
        if self._count:
            raise AssertionError(f"{self.name} ran {self._count} time(s) although {why}")

    def assert_count(self, expected: int, why: str) -> None:
        """Raise ``AssertionError`` unless the canary was hit exactly ``expected`` times."""
        if self._count != expected:
            raise AssertionError(
                f"{self.name} ran {self._count} time(s), expected {expected}: {why}"
            )

    def __repr__(self) -> str:
        return f"Canary({self.name!r}, count={self._count})"


class FileCanary:
    """A file a forbidden side effect would create; proves (by its absence) it never happened."""

    __slots__ = ("path",)

    def __init__(self, directory: str | os.PathLike[str], name: str | None = None) -> None:
        self.path = Path(directory) / (name or f"prism-canary-{uuid.uuid4().hex}")

    @property
    def command(self) -> str:
        """A shell command that would create the canary file."""
        return f"touch {shlex.quote(str(self.path))}"

    @property
    def touched(self) -> bool:
        """Whether the canary file exists (or is a dangling link)."""
        return self.path.exists() or self.path.is_symlink()

    def touch(self) -> None:
        """Create the canary (what a handler does when it runs)."""
        self.path.touch()

    def assert_untouched(self, why: str) -> None:
        """Raise ``AssertionError`` if the canary file exists."""
        if self.touched:
            raise AssertionError(f"canary file {self.path} was created although {why}")


class EventRecorder:
    """An ``emit`` sink that keeps every event, with lookups by type and call id."""

    __slots__ = ("_lock", "events")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        with self._lock:
            self.events.append(event)

    def of_type(self, event_type: str, call_id: str | None = None) -> list[Any]:
        """Events whose ``type`` is ``event_type`` (optionally only for ``call_id``)."""
        return [
            e
            for e in list(self.events)
            if getattr(e, "type", None) == event_type
            and (call_id is None or getattr(getattr(e, "call", None), "id", None) == call_id)
        ]


def assert_not_invoked(
    *, call_id: str, canary: Canary | FileCanary, events: EventRecorder, why: str
) -> None:
    """Both proofs that a handler never ran: no ``started`` event and an untouched canary."""
    started = events.of_type("tool_execution_started", call_id)
    if started:
        raise AssertionError(f"call {call_id!r} got a tool_execution_started event although {why}")
    canary.assert_untouched(why)


def canary_tool(
    name: str,
    canary: Canary,
    *,
    exclusive: bool = False,
    parameters: JsonObject | None = None,
    respond: Callable[[JsonObject, ToolExecutionContext], Awaitable[ToolResult | str]]
    | None = None,
) -> ToolDefinition:
    """A tool whose async handler hits ``canary`` and answers ``ok:<name>`` (or ``respond``)."""

    async def execute(args: JsonObject, ctx: ToolExecutionContext) -> ToolResult | str:
        canary.hit(args)
        if respond is not None:
            return await respond(args, ctx)
        return f"ok:{name}"

    return ToolDefinition(
        name=name,
        execute=execute,
        description=f"conformance canary tool {name}",
        parameters=parameters,
        exclusive=exclusive,
    )
