"""What the coding rows share: the tools under test, calls through ``dispatch``, a workspace
with a directory outside it, file canaries, spill files, and the coding tools over a sandbox."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism.core import (
    AbortController,
    AbortSignal,
    ExecutionPolicy,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    ToolResult,
    render_tool_result,
)

from ._registry import RowSkippedError, require
from ._subjects import ConformanceSubjects

if TYPE_CHECKING:
    from prism.coding_tools import (
        EditOptions,
        ReadOptions,
        ShellOperations,
        ShellOptions,
        WriteOptions,
    )

__all__ = [
    "MIB",
    "POLICY",
    "TOOLS",
    "Dirs",
    "call",
    "call_tool",
    "coding_tools",
    "dirs",
    "discard",
    "exists",
    "expect_absent",
    "expect_error",
    "outside_base",
    "read",
    "sandbox_up",
    "sandboxed_tools",
    "shell",
    "shell_options",
    "spill_path",
    "text",
    "write",
]

MIB = 1024 * 1024
TOOLS = "the coding tools (prism-coding-tools)"
POLICY = "a coding execution policy (prism-coding-security)"


@dataclass(frozen=True, slots=True)
class Dirs:
    """A workspace root and a directory outside it."""

    root: str
    outside: str


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


@contextmanager
def dirs(outside_base: str | None = None) -> Iterator[Dirs]:
    """A realpath'd workspace root and a sibling directory outside it, removed afterwards."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="prism-ws-"))
    outside = os.path.realpath(tempfile.mkdtemp(prefix="prism-outside-", dir=outside_base))
    try:
        yield Dirs(root, outside)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)


def outside_base() -> str | None:
    """A host directory on the root file system (not under /tmp, which the sandbox replaces)."""
    return "/var/tmp" if os.access("/var/tmp", os.W_OK) else None


def text(result: ToolResult) -> str:
    """The result's text blocks and its error message, one per line."""
    parts = [block.text for block in result.content if isinstance(block, TextContent)]
    if result.error is not None:
        parts.append(result.error.message)
    return "\n".join(parts)


async def call(
    subjects: ConformanceSubjects,
    tools: Sequence[ToolDefinition],
    name: str,
    arguments: Mapping[str, Any],
    *,
    signal: AbortSignal | None = None,
    session_id: str = "conformance-session",
    call_id: str | None = None,
) -> ToolResult:
    """One call of ``name`` through the subjects' dispatch over a registry of ``tools`` (a fresh
    call id unless ``call_id`` is given)."""
    call_id = call_id or f"call-{uuid.uuid4().hex[:8]}"
    context = ToolExecutionContext(
        session_id=session_id,
        run_id="conformance-run",
        tool_call_id=call_id,
        signal=signal or AbortController().signal,
    )
    tool_call = ToolCall(id=call_id, name=name, arguments=dict(arguments))
    return await subjects.dispatch(tool_call, registry=ToolRegistry(tools), context=context)


async def call_tool(
    subjects: ConformanceSubjects,
    tool: ToolDefinition,
    arguments: Mapping[str, Any],
    *,
    signal: AbortSignal | None = None,
    call_id: str = "call-1",
) -> ToolResult:
    """Dispatch one call of ``tool`` (alone in the registry) through the subject's ``dispatch``."""
    return await call(subjects, [tool], tool.name, arguments, signal=signal, call_id=call_id)


async def shell(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], command: str, **extra: Any
) -> str:
    """The text of one ``shell`` call (``extra`` joins its arguments)."""
    return text(await call(subjects, tools, "shell", {"command": command, **extra}))


def expect_error(result: ToolResult, why: str) -> None:
    if result.error is None:
        raise AssertionError(f"{why}: expected an error result, got success: {text(result)!r}")


def write(path: str, content: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def exists(path: str) -> bool:
    return os.path.lexists(path)


def expect_absent(path: str, why: str) -> None:
    if os.path.lexists(path):
        raise AssertionError(f"{why}: side effect happened, {path} exists")


def shell_options(*, operations: ShellOperations) -> ShellOptions:
    from prism.coding_tools import ShellOptions

    return ShellOptions(operations=operations)


def sandboxed_tools(
    subjects: ConformanceSubjects, root: str, **options: Any
) -> Sequence[ToolDefinition]:
    """The coding tools in ``root`` whose shell runs in the subjects' sandbox (``options``)."""
    tools_factory = require(subjects.coding_tools_factory, TOOLS)
    sandbox_factory = require(subjects.sandbox_factory, "a sandbox (prism-coding-security)")
    operations = require(subjects.sandbox_operations_factory, "sandbox shell operations")
    sandbox = sandbox_factory(root=root, **options)
    return tools_factory(root, shell=shell_options(operations=operations(sandbox)))


async def sandbox_up(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], root: str
) -> None:
    """Skip the row unless the sandboxed shell can write in ``root``."""
    probe = await shell(subjects, tools, "echo up > up.txt")
    if not exists(os.path.join(root, "up.txt")):
        raise RowSkippedError(f"the sandbox cannot run on this host: {probe[:300]}")
    os.unlink(os.path.join(root, "up.txt"))


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
