"""``create_coding_tools``: the four tools, sharing one execution policy and mutation queue."""

from __future__ import annotations

import os

from prism.core import ExecutionPolicy, ToolDefinition

from ._edit import create_edit_tool
from ._mutation import MutationQueue
from ._options import (
    DEFAULT_EDIT_OPTIONS,
    DEFAULT_READ_OPTIONS,
    DEFAULT_SHELL_OPTIONS,
    DEFAULT_WRITE_OPTIONS,
    EditOptions,
    ReadOptions,
    ShellOptions,
    WriteOptions,
)
from ._read import create_read_tool
from ._shell import create_shell_tool
from ._write import create_write_tool

__all__ = ["create_coding_tools"]


def create_coding_tools(
    cwd: str | os.PathLike[str],
    *,
    execution_policy: ExecutionPolicy | None = None,
    shell: ShellOptions = DEFAULT_SHELL_OPTIONS,
    read: ReadOptions = DEFAULT_READ_OPTIONS,
    write: WriteOptions = DEFAULT_WRITE_OPTIONS,
    edit: EditOptions = DEFAULT_EDIT_OPTIONS,
    mutation_queue: MutationQueue | None = None,
) -> tuple[ToolDefinition, ...]:
    """``(shell, read, write, edit)`` bound to ``cwd``; write and edit share one per-file queue
    (the process-wide default unless ``mutation_queue`` is given)."""
    return (
        create_shell_tool(cwd, options=shell, execution_policy=execution_policy),
        create_read_tool(cwd, options=read, execution_policy=execution_policy),
        create_write_tool(
            cwd, options=write, execution_policy=execution_policy, mutation_queue=mutation_queue
        ),
        create_edit_tool(
            cwd, options=edit, execution_policy=execution_policy, mutation_queue=mutation_queue
        ),
    )
