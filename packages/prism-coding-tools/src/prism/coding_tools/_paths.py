"""Tool paths: resolved from the model's text, checked by the policy, used as checked."""

from __future__ import annotations

import os
from typing import Literal

from prism.core import ExecutionAction, ExecutionPolicy, JsonValue, ToolExecutionContext

from ._common import ToolError, allowed_action

__all__ = ["allowed_path", "path_schema"]


def path_schema(verb: str) -> JsonValue:
    """The schema of a file tool's ``path`` argument."""
    return {"type": "string", "description": f"File to {verb} (relative to cwd)."}


async def allowed_path(
    policy: ExecutionPolicy | None,
    context: ToolExecutionContext,
    root: str,
    raw: str,
    *,
    kind: str,
    risk: Literal["low", "medium", "high"],
) -> str:
    """The path a file tool may use for ``raw``: resolved against ``root``, then as allowed by
    the policy for a ``kind`` action (a denial raises ``ToolError``)."""
    path = _resolve_path(root, raw)
    action = ExecutionAction(kind=kind, operation=kind, paths=(path,), risk=risk)
    return _single_path(await allowed_action(policy, action, context), path, root)


def _resolve_path(cwd: str, raw: str) -> str:
    """An absolute, symlink-free path: ``~`` expanded, relative to ``cwd``."""
    if "\0" in raw:
        raise ToolError("invalid_arguments", "path must not contain NUL characters")
    try:
        return os.path.realpath(os.path.join(cwd, os.path.expanduser(raw)))
    except OSError as exc:  # a component changed between lstat and readlink
        raise ToolError(
            "io_error", f"Cannot resolve {raw}: {exc.strerror or exc} (it changed while resolving)"
        ) from None


def _single_path(action: ExecutionAction, checked: str, cwd: str) -> str:
    """The one path of a (possibly policy-modified) file action.

    The path the policy saw is used verbatim: resolving it again after the check would follow
    a symlink swapped in meanwhile. A path the policy put in its place is made absolute and
    normalized but not resolved: the access then follows no symlink in it (see ``_fs``).
    """
    if len(action.paths) != 1 or not isinstance(action.paths[0], str):
        raise ToolError(
            "execution_denied",
            f"the execution policy returned {len(action.paths)} paths; this tool needs exactly one",
        )
    given = action.paths[0]
    if given == checked:
        return checked
    if "\0" in given:
        raise ToolError("execution_denied", "the execution policy returned a path with NUL")
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(given)))
