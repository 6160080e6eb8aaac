"""One execution protocol: local shell, bubblewrap and the sandbox adapter share one signature."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from prism.coding_security import (
    BubblewrapSandbox,
    Sandbox,
    SandboxCapabilities,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ExecResult, LocalShellOperations, ShellOperations


def _implementations(root: Path) -> dict[str, object]:
    sandbox = BubblewrapSandbox(root=str(root))
    return {
        "LocalShellOperations": LocalShellOperations(),
        "BubblewrapSandbox": sandbox,
        "sandbox adapter": create_sandbox_bash_operations(sandbox),
    }


@pytest.mark.parametrize("name", ["LocalShellOperations", "BubblewrapSandbox", "sandbox adapter"])
def test_every_implementation_inherits_the_one_exec_signature(tmp_path: Path, name: str) -> None:
    implementation = _implementations(tmp_path)[name]
    assert type(implementation).exec is ShellOperations.exec  # type: ignore[attr-defined]
    assert isinstance(implementation, ShellOperations)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"env": None}, TypeError, "ShellOperations.exec.env must be a mapping of str to str"),
        ({"env": {"A": 1}}, TypeError, "ShellOperations.exec.env must be a mapping of str to str"),
        ({"cwd": b"/"}, TypeError, "ShellOperations.exec.cwd must be a str"),
        ({"cwd": "/\0"}, ValueError, "ShellOperations.exec.cwd must be a str without NUL"),
        ({"on_data": "print"}, TypeError, "ShellOperations.exec.on_data must be callable"),
        ({"timeout_seconds": 0}, ValueError, "ShellOperations.exec.timeout_seconds must be"),
        ({"timeout_seconds": float("nan")}, ValueError, "ShellOperations.exec.timeout_seconds"),
        ({"timeout_seconds": 86_401}, ValueError, "at most 86400"),
    ],
)
async def test_bad_exec_arguments_are_refused_before_anything_runs(
    tmp_path: Path, change: dict[str, object], error: type[Exception], message: str
) -> None:
    canary = tmp_path / "ran"
    arguments: dict[str, object] = {
        "cwd": str(tmp_path),
        "env": {"PATH": "/usr/bin:/bin"},
        "on_data": lambda _: None,
        **change,
    }
    for implementation in _implementations(tmp_path).values():
        with pytest.raises(error, match=message):
            await implementation.exec(f"touch {canary}", **arguments)  # type: ignore[attr-defined]
    assert not canary.exists()


def test_the_sandbox_protocol_extends_the_shell_protocol_only_by_capabilities() -> None:
    assert issubclass(Sandbox, ShellOperations)
    assert inspect.signature(Sandbox.exec) == inspect.signature(ShellOperations.exec)
    own = {name for name in vars(Sandbox) if not name.startswith("_")}
    assert own == {"capabilities"}


def test_a_bubblewrap_sandbox_is_a_sandbox(tmp_path: Path) -> None:
    sandbox = BubblewrapSandbox(root=str(tmp_path))
    assert isinstance(sandbox, Sandbox)
    assert isinstance(sandbox.capabilities, SandboxCapabilities)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"exit_code": True}, "ExecResult.exit_code must be an int or None"),
        ({"exit_code": "0"}, "ExecResult.exit_code must be an int or None"),
        ({"exit_code": None, "timed_out": 1}, "ExecResult.timed_out must be True or False"),
        ({"exit_code": None, "aborted": "yes"}, "ExecResult.aborted must be True or False"),
    ],
)
def test_a_malformed_exec_result_is_refused_naming_the_field(
    fields: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        ExecResult(**fields)  # type: ignore[arg-type]


def test_a_subclass_that_implements_neither_run_nor_exec_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="implement run or exec"):

        class Forgetful(ShellOperations):
            pass
