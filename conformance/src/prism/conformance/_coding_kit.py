"""What the coding-security rows share: a workspace with a directory outside it, calls through
dispatch, file canaries, and the coding tools over a real sandbox."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prism.core import (
    AbortController,
    AbortSignal,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    ToolResult,
)

from ._registry import RowSkippedError, require
from ._subjects import ConformanceSubjects

if TYPE_CHECKING:
    from prism.coding_tools import ShellOperations, ShellOptions

__all__ = [
    "POLICY",
    "TOOLS",
    "Dirs",
    "call",
    "dirs",
    "exists",
    "expect_absent",
    "expect_error",
    "outside_base",
    "read",
    "sandbox_up",
    "sandboxed_tools",
    "shell",
    "shell_options",
    "text",
    "write",
]

TOOLS = "the coding tools (prism-coding-tools)"
POLICY = "a coding execution policy (prism-coding-security)"


@dataclass(frozen=True)
class Dirs:
    root: str
    outside: str


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
) -> ToolResult:
    """One call of ``name`` through the subjects' dispatch over a registry of ``tools``."""
    call_id = f"call-{uuid.uuid4().hex[:8]}"
    context = ToolExecutionContext(
        session_id=session_id,
        run_id="conformance-run",
        tool_call_id=call_id,
        signal=signal or AbortController().signal,
    )
    tool_call = ToolCall(id=call_id, name=name, arguments=dict(arguments))
    return await subjects.dispatch(tool_call, registry=ToolRegistry(tools), context=context)


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
