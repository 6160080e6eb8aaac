"""A test double for host integrations: tools recording which calls ran and how they overlapped."""

from __future__ import annotations

from ._backend import sleep
from ._types import JsonObject, ToolDefinition, ToolExecutionContext

__all__ = ["RecordingTools"]


class RecordingTools:
    """Makes tools whose handlers record each call id, the peak concurrency and whether an
    exclusive tool ever ran beside another one (shared by the framework adapter tests)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.active = 0
        self.peak = 0
        self.exclusive_overlap = False
        self._exclusive_active = False

    def tool(
        self,
        name: str,
        *,
        delay: float = 0.0,
        description: str | None = None,
        parameters: JsonObject | None = None,
        exclusive: bool = False,
    ) -> ToolDefinition:
        """A tool ``name`` whose handler sleeps ``delay`` seconds and answers ``"<name> ok"``."""

        async def execute(args: JsonObject, ctx: ToolExecutionContext) -> str:
            self.calls.append(ctx.tool_call_id)
            if self._exclusive_active or (exclusive and self.active):
                self.exclusive_overlap = True
            self.active += 1
            self._exclusive_active = self._exclusive_active or exclusive
            self.peak = max(self.peak, self.active)
            try:
                await sleep(delay)
            finally:
                self.active -= 1
                if exclusive:
                    self._exclusive_active = False
            return f"{name} ok"

        return ToolDefinition(
            name=name,
            execute=execute,
            description=description,
            parameters=parameters,
            exclusive=exclusive,
        )
