"""The ``edit`` tool: exact (or fuzzy) unique replacements, applied atomically per file."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence

from prism.core import (
    ExecutionPolicy,
    JsonObject,
    JsonValue,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)

from ._atomic import replace_in
from ._common import (
    ToolError,
    guarded_tool,
    ok_result,
    require_keys,
    require_str,
    tool_root,
)
from ._edit_apply import Applied, Edit, apply_edits
from ._fs import fs_error, lstat_in, open_directory, open_regular, split_target
from ._mutation import DEFAULT_MUTATION_QUEUE, MutationQueue, mutate_checked_path
from ._options import DEFAULT_EDIT_OPTIONS, EditOptions
from ._paging import read_up_to
from ._paths import path_schema

__all__ = ["create_edit_tool"]

_ARGUMENTS = ("path", "edits")
_DESCRIPTION = (
    "Edit a text file by exact replacement. Each edit's old_text must appear exactly once in "
    "the original file (all edits are matched against the original, must not overlap, and "
    "must change something). Copy old_text exactly from the file; LF line breaks match CRLF "
    "files. At most {edits} edits and {limit} bytes of text per call. Relative paths are "
    "resolved against {cwd}."
)


def _parse_edits(value: JsonValue, options: EditOptions) -> list[Edit]:
    """Check the ``edits`` argument's shape, count and total size (no filesystem access)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
        raise ToolError(
            "invalid_arguments", "edits must be a non-empty list of {old_text, new_text} objects"
        )
    if len(value) > options.max_edits:
        raise ToolError(
            "input_too_large",
            f"{len(value)} edits is more than the limit of {options.max_edits}; split the change",
        )
    edits: list[Edit] = []
    budget = options.max_input_bytes
    for number, item in enumerate(value, start=1):
        if not isinstance(item, Mapping) or set(item) != {"old_text", "new_text"}:
            raise ToolError(
                "invalid_arguments",
                f"edits[{number - 1}] must be an object with exactly old_text and new_text",
            )
        old, new = item["old_text"], item["new_text"]
        if not isinstance(old, str) or not isinstance(new, str):
            raise ToolError("invalid_arguments", f"edits[{number - 1}]: texts must be strings")
        budget -= _utf8_size(old, budget) + _utf8_size(new, budget)
        if budget < 0:
            raise ToolError(
                "input_too_large",
                f"the edits hold more than the {options.max_input_bytes:,}-byte limit of text; "
                "nothing was changed",
            )
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        if not old:
            raise ToolError("invalid_arguments", f"Edit {number}: old_text must not be empty")
        if old == new:
            raise ToolError(
                "edit_noop", f"Edit {number}: old_text and new_text are identical; nothing to do"
            )
        edits.append(Edit(old=old, new=new))
    return edits


def _utf8_size(text: str, budget: int) -> int:
    if len(text) > budget:
        return len(text)  # already over: no need to encode
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise ToolError(
            "invalid_arguments", "edit text is not valid Unicode (it holds a lone surrogate)"
        ) from None


def create_edit_tool(
    cwd: str | os.PathLike[str],
    *,
    options: EditOptions = DEFAULT_EDIT_OPTIONS,
    execution_policy: ExecutionPolicy | None = None,
    mutation_queue: MutationQueue | None = None,
) -> ToolDefinition:
    """The ``edit`` tool bound to ``cwd``; see ``docs/coding-tools.md``."""
    root = tool_root(cwd, options, EditOptions)
    queue = mutation_queue or DEFAULT_MUTATION_QUEUE

    async def run(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        require_keys(arguments, _ARGUMENTS, _ARGUMENTS)
        raw = require_str(arguments, "path")
        edits = _parse_edits(arguments["edits"], options)  # before any fs access
        target, applied = await mutate_checked_path(
            queue, execution_policy, context, root, raw, kind="edit", what=f"editing {raw}",
            work=lambda path, should_stop: _edit_file(path, raw, edits, options, should_stop),
        )  # fmt: skip
        return _result(context, raw, target, len(edits), applied)

    return guarded_tool(
        "edit",
        run,
        description=_DESCRIPTION.format(
            edits=options.max_edits, limit=options.max_input_bytes, cwd=root
        ),
        properties={"path": path_schema("edit"), "edits": _edits_schema(options.max_edits)},
        required=_ARGUMENTS,
    )


def _edits_schema(max_edits: int) -> JsonValue:
    return {
        "type": "array",
        "minItems": 1,
        "maxItems": max_edits,
        "items": {
            "type": "object",
            "properties": {
                "old_text": {"type": "string", "minLength": 1},
                "new_text": {"type": "string"},
            },
            "required": ["old_text", "new_text"],
            "additionalProperties": False,
        },
    }


def _edit_file(
    path: str,
    shown: str,
    edits: list[Edit],
    options: EditOptions,
    should_stop: Callable[[], bool],
) -> Applied:
    """Read, edit and replace ``path`` through one directory fd (see ``_fs``)."""
    limit = options.max_file_bytes
    parent, name = split_target(path, shown)
    try:
        dir_fd = open_directory(parent, create=False)
    except FileNotFoundError:
        raise _not_found(shown) from None
    except OSError as exc:
        raise fs_error(exc, "edit", shown) from None
    try:
        raw = _load(dir_fd, name, path, shown, limit)
        applied = apply_edits(raw, edits, shown=shown)
        if len(applied.data) > limit:
            raise _too_big(shown, len(applied.data), limit, " after the edits")
        replace_in(dir_fd, name, path, applied.data, should_stop, shown=shown, verb="edit")
        return applied
    finally:
        os.close(dir_fd)


def _load(dir_fd: int, name: str, path: str, shown: str, limit: int) -> bytes:
    try:
        info = lstat_in(dir_fd, name, path)
        if info is None:
            raise _not_found(shown)
        if not stat.S_ISREG(info.st_mode):
            raise ToolError("not_a_file", f"Cannot edit {shown}: it is not a regular file")
        if info.st_size > limit:
            raise _too_big(shown, info.st_size, limit)
        with open(open_regular(dir_fd, name, path, info), "rb", buffering=0) as f:
            raw = read_up_to(f, limit + 1)
    except FileNotFoundError:
        raise _not_found(shown) from None
    except OSError as exc:
        raise fs_error(exc, "edit", shown) from None
    if len(raw) > limit:
        raise _too_big(shown, len(raw), limit)
    return raw


def _not_found(shown: str) -> ToolError:
    return ToolError("file_not_found", f"File not found: {shown}; use the write tool to create it")


def _too_big(shown: str, size: int, limit: int, when: str = "") -> ToolError:
    return ToolError(
        "file_too_large",
        f"{shown} {'would be' if when else 'is'} {size:,} bytes{when}, over the edit limit of "
        f"{limit:,} bytes (max_file_bytes); nothing was changed",
    )


def _result(
    context: ToolExecutionContext, shown: str, path: str, count: int, applied: Applied
) -> ToolResult:
    text = f"Edited {shown}: {count} replacement{'s' if count != 1 else ''}"
    if applied.fuzzy:
        numbers = ", ".join(str(n) for n in applied.fuzzy)
        text += (
            f". Edit {numbers} did not match exactly and was matched after normalizing "
            "whitespace at line ends, quotes, dashes and special spaces (fuzzy match)"
        )
    return ok_result(
        "edit",
        context,
        text + ".",
        {
            "path": path,
            "diff": applied.diff,
            "fuzzy": applied.fuzzy,
            "replacements": count,
            "first_changed_line": applied.first_changed_line,
        },
    )
