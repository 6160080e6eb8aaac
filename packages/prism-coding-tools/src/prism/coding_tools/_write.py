"""The ``write`` tool: bounded, policy-checked, atomic, serialized per file."""

from __future__ import annotations

import os

from prism.core import (
    ExecutionPolicy,
    JsonObject,
    JsonValue,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)

from ._atomic import atomic_write
from ._common import (
    ToolError,
    guarded_tool,
    ok_result,
    require_keys,
    require_str,
    tool_root,
)
from ._mutation import DEFAULT_MUTATION_QUEUE, MutationQueue, mutate_checked_path
from ._options import DEFAULT_WRITE_OPTIONS, WriteOptions
from ._paths import path_schema

__all__ = ["create_write_tool"]

_ARGUMENTS = ("path", "content")
_CONTENT_SCHEMA: JsonValue = {"type": "string", "description": "The complete new content."}
_DESCRIPTION = (
    "Create or overwrite a file with the given content (at most {limit} bytes of UTF-8). Parent "
    "directories are created. The file is replaced atomically; an existing file keeps its mode. "
    "Relative paths are resolved against {cwd}."
)


def _encode_bounded(text: str, limit: int, what: str) -> bytes:
    """UTF-8 bytes of ``text``, refusing more than ``limit`` bytes (checked before encoding
    when the character count alone proves it)."""
    if len(text) > limit:
        raise ToolError(
            "input_too_large",
            f"{what} has {len(text):,} characters, more than the {limit:,}-byte limit; "
            "nothing was written",
        )
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(
            "invalid_arguments", f"{what} is not valid Unicode (it holds a lone surrogate)"
        ) from None
    if len(data) > limit:
        raise ToolError(
            "input_too_large",
            f"{what} is {len(data):,} bytes of UTF-8, more than the {limit:,}-byte limit; "
            "nothing was written",
        )
    return data


def create_write_tool(
    cwd: str | os.PathLike[str],
    *,
    options: WriteOptions = DEFAULT_WRITE_OPTIONS,
    execution_policy: ExecutionPolicy | None = None,
    mutation_queue: MutationQueue | None = None,
) -> ToolDefinition:
    """The ``write`` tool bound to ``cwd``; see ``docs/coding-tools.md``."""
    root = tool_root(cwd, options, WriteOptions)
    queue = mutation_queue or DEFAULT_MUTATION_QUEUE

    async def run(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        require_keys(arguments, _ARGUMENTS, _ARGUMENTS)
        raw = require_str(arguments, "path")
        content = require_str(arguments, "content", non_empty=False)
        data = _encode_bounded(content, options.max_input_bytes, "content")  # before any fs access
        target, created = await mutate_checked_path(
            queue, execution_policy, context, root, raw, kind="write", what=f"writing {raw}",
            work=lambda path, should_stop: atomic_write(path, data, should_stop, shown=raw),
        )  # fmt: skip
        verb = "Created" if created else "Wrote"
        return ok_result(
            "write",
            context,
            f"{verb} {raw} ({len(data):,} bytes)",
            {"path": target, "bytes": len(data), "created": created},
        )

    return guarded_tool(
        "write",
        run,
        description=_DESCRIPTION.format(limit=options.max_input_bytes, cwd=root),
        properties={"path": path_schema("write"), "content": _CONTENT_SCHEMA},
        required=_ARGUMENTS,
    )
