"""Runs one hostile schema/argument pair through the real dispatch pipeline (shared by the
attack tests: each finding is reproduced end to end, on asyncio and trio)."""

from __future__ import annotations

import os
from typing import Any

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)
from prism.jsonschema import JsonSchemaValidatorOptions, create_json_schema_tool_argument_validator


class Recorder:
    """A tool handler that records the arguments it was given."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def __call__(self, args: Any, context: ToolExecutionContext) -> str:
        self.calls.append(args)
        return "ran"


async def dispatch_once(
    engine: str, schema: Any, arguments: Any, **options: Any
) -> tuple[ToolResult, Recorder]:
    """Dispatch ``arguments`` to a tool with ``schema`` validated on ``engine``."""
    handler = Recorder()
    validate = create_json_schema_tool_argument_validator(
        options=JsonSchemaValidatorOptions(engine=engine, **options)
    )
    tool = ToolDefinition(name="shell", execute=handler, parameters=schema)
    result = await dispatch_tool_call(
        ToolCall(id="c1", name="shell", arguments=arguments),
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=validate),
    )
    return result, handler


def compile_children() -> list[tuple[int, int]]:
    """(pid, RSS bytes) of every live compile child of this process (``python -I -S -c``), read
    from /proc: a test worker has other children (servers of session fixtures) to leave alone."""
    me = os.getpid()
    found: list[tuple[int, int]] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
            if argv[1:4] != [b"-I", b"-S", b"-c"]:
                continue
            with open(f"/proc/{name}/statm") as statm:
                rss = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
        found.append((int(name), rss))
    return found
