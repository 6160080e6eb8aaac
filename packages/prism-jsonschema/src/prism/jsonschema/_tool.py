"""The dispatch ``ToolValidator``: a compile, or a validation whose work (expanded size x value
nodes) is not provably small, runs off the event loop.

Dispatch awaits what a validator returns, so then this one returns an awaitable that runs it
in a worker thread (prism-core's backend shim: asyncio or trio). Cancelling it
(an abort past its grace) returns at once; an abandoned in-process compile finishes within the
compile budget and its result is cached, a child compile is skipped or killed (see
``_childcompile``). Outside a running event loop everything stays synchronous.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable

from prism.core import (
    AbortSignal,
    ErrorInfo,
    JsonObject,
    ToolArgumentValidationResult,
    ToolDefinition,
    ToolExecutionContext,
    ToolValidator,
)
from prism.core.lowlevel import (
    current_backend,
    missing_schema_blocked,
    to_thread,
    validation_verdict,
)

from ._cache import CacheInfo
from ._childcompile import abandoned_when
from ._options import JsonSchemaValidatorOptions
from ._validator import LIGHT_WORK, JsonSchemaArgumentValidator

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
        self, tool: ToolDefinition, arguments: JsonObject, _context: ToolExecutionContext
    ) -> ErrorInfo | None | Awaitable[ErrorInfo | None]:
        schema = tool.parameters
        if schema is None:
            return missing_schema_blocked(tool) if self._reject_missing else None
        validator = self.validator
        work = validator.work(schema, arguments)
        if (work is None or work > LIGHT_WORK) and _in_event_loop():
            return self._off_loop(schema, arguments, getattr(_context, "signal", None))
        result = validator.validate(schema, arguments)
        return None if result.ok else validation_verdict(result)  # passing: no verdict to build

    async def _off_loop(
        self, schema: JsonObject, arguments: JsonObject, signal: AbortSignal | None
    ) -> ErrorInfo | None:
        validate = self.validator.validate
        cancelled = threading.Event()

        def run() -> ToolArgumentValidationResult:
            with abandoned_when(lambda: cancelled.is_set() or bool(signal and signal.aborted)):
                return validate(schema, arguments)

        try:
            return validation_verdict(await to_thread(run))
        except BaseException:  # cancelled (an abort past its grace): no compile child outlives it
            cancelled.set()
            raise


def _in_event_loop() -> bool:
    """Whether an asyncio loop or a trio run is active in this thread (then awaiting works)."""
    if current_backend() == "trio":
        return True
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def create_json_schema_tool_argument_validator(
    *, options: JsonSchemaValidatorOptions | None = None
) -> ToolValidator:
    """A dispatch ``ToolValidator`` over a new ``JsonSchemaArgumentValidator(options=options)``.

    The returned callable also has ``.validator`` and ``.cache_info()``.
    """
    return _JsonSchemaToolValidator(JsonSchemaArgumentValidator(options=options))
