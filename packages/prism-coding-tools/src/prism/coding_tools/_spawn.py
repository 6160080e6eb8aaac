"""What the shell actually spawns: ``command_prefix``, then the host's ``spawn_hook``, re-checked.

The policy decides on the model's command. The host's prefix and hook then shape what really
runs; when the hook changes anything, the policy is asked again about the result
(``operation="spawn"``), so a hook can never run what the policy would refuse.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from prism.core import ExecutionAction, ExecutionPolicy, ToolExecutionContext

from ._common import ToolError, allowed_action

__all__ = ["SpawnContext", "SpawnHook", "prepare_spawn"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SpawnContext:
    """The command, working directory and environment a shell command is spawned with."""

    command: str
    cwd: str
    env: Mapping[str, str]
    """Copied into a read-only mapping at construction."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))


SpawnHook = Callable[[SpawnContext], "SpawnContext | Awaitable[SpawnContext]"]
"""Host code that adjusts a ``SpawnContext`` before the spawn (sync or async)."""


def _check(produced: object) -> SpawnContext:
    if not isinstance(produced, SpawnContext):
        raise ToolError(
            "shell_failed", f"spawn_hook returned {type(produced).__name__}, not a SpawnContext"
        )
    if not isinstance(produced.command, str) or not produced.command or "\0" in produced.command:
        raise ToolError("shell_failed", "spawn_hook returned an empty or NUL-holding command")
    if not isinstance(produced.cwd, str) or not os.path.isabs(produced.cwd):
        raise ToolError(
            "shell_failed", f"spawn_hook returned a cwd that is not absolute: {produced.cwd!r}"
        )
    for name, value in produced.env.items():
        if not isinstance(name, str) or not isinstance(value, str) or not name or "=" in name:
            raise ToolError("shell_failed", f"spawn_hook returned an invalid variable {name!r}")
        if "\0" in name or "\0" in value:
            raise ToolError("shell_failed", f"spawn_hook returned a variable with NUL: {name!r}")
    return produced


def _changed_names(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n)))


async def prepare_spawn(
    allowed_command: str,
    allowed_cwd: str,
    *,
    env: Mapping[str, str],
    prefix: str | None,
    hook: SpawnHook | None,
    policy: ExecutionPolicy | None,
    context: ToolExecutionContext,
) -> SpawnContext:
    """Apply the prefix and the hook to the policy-allowed command; re-check a changed result."""
    command = f"{prefix}\n{allowed_command}" if prefix else allowed_command
    base = SpawnContext(command=command, cwd=allowed_cwd, env=env)
    if hook is None:
        return base
    try:
        produced = hook(base)
        if inspect.isawaitable(produced):
            produced = await produced
    except Exception as exc:
        raise ToolError("shell_failed", f"spawn_hook failed: {type(exc).__name__}: {exc}") from None
    spawn = _check(produced)
    if spawn == base:
        return spawn
    action = ExecutionAction(
        kind="shell",
        operation="spawn",
        command=spawn.command,
        cwd=spawn.cwd,
        paths=(spawn.cwd,),
        risk="high",
        metadata={
            "allowed_command": allowed_command,
            "allowed_cwd": allowed_cwd,
            "command_prefix": prefix,
            "env_changed": _changed_names(base.env, spawn.env),
        },
    )
    rechecked = await allowed_action(policy, action, context)
    if rechecked.command != spawn.command or rechecked.cwd != spawn.cwd:
        raise ToolError(
            "execution_denied", "the execution policy rewrote the spawn_hook's command; refused"
        )
    return spawn
