"""Shell, read, write and edit tools for coding agents, with hard output bounds.

Each tool asks an optional ``ExecutionPolicy`` before any side effect and turns every expected
failure into an error ``ToolResult``. See ``docs/coding-tools.md``.
"""

from ._edit import create_edit_tool
from ._exec import ExecRequest, ExecResult, ShellOperations
from ._factory import create_coding_tools
from ._local_shell import LocalShellOperations
from ._mutation import MutationQueue
from ._options import (
    DEFAULT_MAX_IMAGE_BYTES,
    EditOptions,
    ReadOptions,
    ShellOptions,
    TransformImageInput,
    WriteOptions,
)
from ._read import create_read_tool
from ._shell import create_shell_tool
from ._spawn import SpawnContext, SpawnHook
from ._write import create_write_tool

__all__ = [
    "DEFAULT_MAX_IMAGE_BYTES",
    "EditOptions",
    "ExecRequest",
    "ExecResult",
    "LocalShellOperations",
    "MutationQueue",
    "ReadOptions",
    "ShellOperations",
    "ShellOptions",
    "SpawnContext",
    "SpawnHook",
    "TransformImageInput",
    "WriteOptions",
    "create_coding_tools",
    "create_edit_tool",
    "create_read_tool",
    "create_shell_tool",
    "create_write_tool",
]
