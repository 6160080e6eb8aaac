"""command_prefix and spawn_hook: what really runs, what the policy and the executor see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import ExecResult, ShellOptions, SpawnContext, create_shell_tool
from prism.core import ExecutionAction, ExecutionDecision
from prism.core.testing import scaled

from .conftest import Scripted

pytestmark = pytest.mark.anyio


class DenySpawn:
    """Allows the model's command, refuses every spawn re-check."""

    def __init__(self) -> None:
        self.actions: list[ExecutionAction] = []

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        self.actions.append(action)
        allowed = action.operation == "execute"
        return ExecutionDecision(allowed=allowed, reason=None if allowed else "hook widened it")


def text(result: Any) -> str:
    return str(result.content[0].text)


async def test_prefix_runs_first_and_the_policy_sees_only_the_model_command(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    recorder = policy()
    options = ShellOptions(command_prefix="export PRISM_PREFIX=from-prefix")
    shell = create_shell_tool(tmp_path, options=options, execution_policy=recorder)
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": "echo $PRISM_PREFIX"}, context())
    assert text(result) == "from-prefix"
    assert [(a.operation, a.command) for a in recorder.actions] == [
        ("execute", "echo $PRISM_PREFIX")
    ]


async def test_hook_adjusts_command_cwd_and_env_and_the_result_is_rechecked(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    (tmp_path / "sub").mkdir()
    seen: list[SpawnContext] = []

    async def hook(spawn: SpawnContext) -> SpawnContext:
        seen.append(spawn)
        return SpawnContext(
            command=spawn.command + "; echo hooked=$HOOKED",
            cwd=str(tmp_path / "sub"),
            env={**spawn.env, "HOOKED": "yes"},
        )

    recorder = policy()
    options = ShellOptions(command_prefix="true", spawn_hook=hook, env_allowlist=["PATH"])
    shell = create_shell_tool(tmp_path, options=options, execution_policy=recorder)
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": "pwd"}, context())
    assert text(result) == f"{tmp_path}/sub\nhooked=yes"
    assert seen[0].command == "true\npwd" and seen[0].cwd == str(tmp_path)
    assert set(seen[0].env) <= {"PATH"}
    first, second = recorder.actions
    assert (first.operation, first.command) == ("execute", "pwd")
    assert second.operation == "spawn" and second.kind == "shell" and second.risk == "high"
    assert second.command == "true\npwd; echo hooked=$HOOKED"
    assert second.cwd == str(tmp_path / "sub") and second.paths == (str(tmp_path / "sub"),)
    assert second.metadata["allowed_command"] == "pwd"
    assert second.metadata["command_prefix"] == "true"
    assert second.metadata["env_changed"] == ("HOOKED",)
    assert second.metadata["session_id"] == "session-1"


async def test_a_hook_result_the_policy_refuses_never_runs(tmp_path: Path, context: Any) -> None:
    canary = tmp_path / "canary"

    def hook(spawn: SpawnContext) -> SpawnContext:
        return SpawnContext(command=f"touch {canary}", cwd=spawn.cwd, env=spawn.env)

    deny = DenySpawn()
    operations = Scripted(ExecResult(exit_code=0), b"ran\n")
    options = ShellOptions(spawn_hook=hook, operations=operations)
    shell = create_shell_tool(tmp_path, options=options, execution_policy=deny)
    with anyio.fail_after(scaled(20)):
        result = await shell.execute({"command": "true"}, context())
    assert result.error is not None and result.error.code == "execution_denied"
    assert result.error.message == "hook widened it"
    assert operations.calls == [] and not canary.exists()


async def test_the_executor_gets_exactly_the_hooked_spawn_and_an_unchanged_hook_is_not_rechecked(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    operations = Scripted(ExecResult(exit_code=0), b"ran\n")
    recorder = policy()

    def rewrite(spawn: SpawnContext) -> SpawnContext:
        return SpawnContext(command="wrapped: " + spawn.command, cwd="/", env={"ONLY": "this"})

    shell = create_shell_tool(
        tmp_path,
        options=ShellOptions(operations=operations, spawn_hook=rewrite, command_prefix="p"),
        execution_policy=recorder,
    )
    same = create_shell_tool(
        tmp_path,
        options=ShellOptions(operations=operations, spawn_hook=lambda spawn: spawn),
        execution_policy=recorder,
    )
    with anyio.fail_after(scaled(20)):
        await shell.execute({"command": "ls"}, context())
        await same.execute({"command": "ls"}, context())
    first, second = operations.calls
    assert (first["command"], first["cwd"], dict(first["env"])) == (
        "wrapped: p\nls",
        "/",
        {"ONLY": "this"},
    )
    assert (second["command"], second["cwd"]) == ("ls", str(tmp_path))
    assert [a.operation for a in recorder.actions] == ["execute", "spawn", "execute"]


@pytest.mark.parametrize(
    ("hook", "message"),
    [
        (lambda spawn: 1 / 0, "spawn_hook failed: ZeroDivisionError"),
        (lambda spawn: {"command": "x"}, "not a SpawnContext"),
        (lambda spawn: SpawnContext(command="", cwd="/", env={}), "empty"),
        (lambda spawn: SpawnContext(command="x", cwd="rel", env={}), "not absolute"),
        (lambda spawn: SpawnContext(command="x", cwd="/", env={"A=B": "c"}), "invalid variable"),
    ],
)
async def test_a_broken_hook_is_an_error_result_and_nothing_runs(
    tmp_path: Path, context: Any, hook: Any, message: str
) -> None:
    operations = Scripted(ExecResult(exit_code=0), b"ran\n")
    options = ShellOptions(operations=operations, spawn_hook=hook)
    with anyio.fail_after(scaled(20)):
        result = await create_shell_tool(tmp_path, options=options).execute(
            {"command": "true"}, context()
        )
    assert result.error is not None and result.error.code == "shell_failed"
    assert message in result.error.message
    assert operations.calls == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("command_prefix", ""), ("command_prefix", "a\0b"), ("command_prefix", 3), ("spawn_hook", 5)],
)
def test_bad_spawn_options_are_refused_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ValueError if isinstance(value, str) else TypeError, match=field):
        ShellOptions(**{field: value})  # type: ignore[arg-type]
