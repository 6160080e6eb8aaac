"""How the coding-tools rows build the tools under test and call them through ``dispatch``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism.core import (
    AbortController,
    AbortSignal,
    ExecutionPolicy,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    ToolResult,
    render_tool_result,
)

from ._registry import require

if TYPE_CHECKING:
    from prism.coding_tools import EditOptions, ReadOptions, ShellOptions, WriteOptions

    from ._subjects import ConformanceSubjects

__all__ = ["MIB", "call_tool", "coding_tools", "discard", "spill_path"]

MIB = 1024 * 1024


def coding_tools(
    subjects: ConformanceSubjects,
    cwd: str,
    *,
    shell: ShellOptions | None = None,
    read: ReadOptions | None = None,
    write: WriteOptions | None = None,
    edit: EditOptions | None = None,
    execution_policy: ExecutionPolicy | None = None,
) -> dict[str, ToolDefinition]:
    """The subject's coding tools for ``cwd`` by name; options left ``None`` keep its defaults."""
    factory = require(subjects.coding_tools_factory, "coding tools (prism-coding-tools)")
    given = {
        "shell": shell,
        "read": read,
        "write": write,
        "edit": edit,
        "execution_policy": execution_policy,
    }
    options = {name: value for name, value in given.items() if value is not None}
    return {tool.name: tool for tool in factory(cwd, **options)}


async def call_tool(
    subjects: ConformanceSubjects,
    tool: ToolDefinition,
    arguments: Mapping[str, Any],
    *,
    signal: AbortSignal | None = None,
    call_id: str = "call-1",
) -> ToolResult:
    context = ToolExecutionContext(
        session_id="conformance-session",
        run_id="conformance-run",
        tool_call_id=call_id,
        signal=signal if signal is not None else AbortController().signal,
    )
    call = ToolCall(id=call_id, name=tool.name, arguments=dict(arguments))
    """Dispatch one call of ``tool`` through the subject's ``dispatch``."""
    return await subjects.dispatch(call, registry=ToolRegistry([tool]), context=context)


def discard(path: str | None) -> None:
    """Remove a spill file a row made (if any)."""
    if path:
        Path(path).unlink(missing_ok=True)


def spill_path(result: ToolResult) -> str | None:
    """The full-output file a shell result names (its metadata, else a path in its text)."""
    path: object = result.metadata.get("full_output_path")
    if isinstance(path, str):
        return path
    found = re.findall(r"(/[^\s\]\)]+)", render_tool_result(result))
    return next((str(c) for c in found if os.path.isfile(c)), None)
