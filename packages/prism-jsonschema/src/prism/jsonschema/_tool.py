"""The dispatch ``ToolValidator``: a first compile (or a heavy schema) runs off the event loop.

Dispatch awaits what a validator returns, so on a miss this one returns an awaitable that runs
the compile in a worker thread (prism-core's backend shim: asyncio or trio). Cancelling it
(an abort past its grace) returns at once; the abandoned compile finishes within the compile
budget and its result is cached. Outside a running event loop everything stays synchronous.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import Any

from prism.core import (
    ErrorInfo,
    JsonObject,
    ToolArgumentValidationResult,
    ToolDefinition,
    ToolExecutionContext,
    ToolValidator,
)
from prism.core._backend import to_thread

from ._cache import CacheInfo
from ._errors import render_errors
from ._validator import JsonSchemaArgumentValidator

__all__ = ["create_json_schema_tool_argument_validator"]


class _JsonSchemaToolValidator:
    """The dispatch ``ToolValidator``: ``None`` passes, an ``ErrorInfo`` blocks."""

    def __init__(self, validator: JsonSchemaArgumentValidator) -> None:
        self.validator = validator
        self._reject_missing = validator.options.missing_schema == "reject"

    def cache_info(self) -> CacheInfo:
        """The underlying validator's ``CacheInfo``."""
        return self.validator.cache_info()

    def __call__(
        self, tool: ToolDefinition, arguments: JsonObject, context: ToolExecutionContext
    ) -> ErrorInfo | None | Awaitable[ErrorInfo | None]:
        schema = tool.parameters
        if schema is None:
            if not self._reject_missing:
                return None
            return ErrorInfo(
                code="validation_failed",
                message=f"Tool {tool.name} has no parameter schema; calls are rejected",
            )
        validator = self.validator
        if not validator.is_light(schema) and _in_event_loop():
            return self._off_loop(schema, arguments)
        return _verdict(validator.validate(schema, arguments))

    async def _off_loop(self, schema: JsonObject, arguments: JsonObject) -> ErrorInfo | None:
        validate = self.validator.validate
        return _verdict(await to_thread(lambda: validate(schema, arguments)))


def _verdict(result: ToolArgumentValidationResult) -> ErrorInfo | None:
    if result.ok:
        return None
    return ErrorInfo(
        code="validation_failed",
        message=render_errors(result.errors),
        details={"errors": [{"path": e.path, "message": e.message} for e in result.errors]},
    )


def _in_event_loop() -> bool:
    """Whether an asyncio loop or a trio run is active in this thread (then awaiting works)."""
    trio: Any = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            return True
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def create_json_schema_tool_argument_validator(**options: Any) -> ToolValidator:
    """A dispatch ``ToolValidator`` over a new ``JsonSchemaArgumentValidator(**options)``.

    The returned callable also has ``.validator`` and ``.cache_info()``.
    """
    return _JsonSchemaToolValidator(JsonSchemaArgumentValidator(**options))
