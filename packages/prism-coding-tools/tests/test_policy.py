"""The execution policy is asked inside execute, before any side effect, with documented actions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prism.coding_tools import create_coding_tools
from prism.core import (
    AbortController,
    ExecutionAction,
    ExecutionDecision,
    ToolDefinition,
    render_tool_result,
)

pytestmark = pytest.mark.anyio

META = {"session_id": "session-1", "run_id": "run-1"}


def tools(tmp_path: Path, policy: object) -> dict[str, ToolDefinition]:
    return {t.name: t for t in create_coding_tools(tmp_path, execution_policy=policy)}  # type: ignore[arg-type]


def calls(tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("shell", {"command": f"touch {tmp_path}/canary"}),
        ("read", {"path": "secret.txt"}),
        ("write", {"path": "new/file.txt", "content": "x"}),
        ("edit", {"path": "secret.txt", "edits": [{"old_text": "top", "new_text": "x"}]}),
    ]


def expected_actions(tmp_path: Path) -> list[ExecutionAction]:
    root = str(tmp_path)
    return [
        ExecutionAction(
            kind="shell",
            operation="execute",
            command=f"touch {root}/canary",
            cwd=root,
            paths=(root,),
            risk="high",
            metadata=META,
        ),
        ExecutionAction(
            kind="read", operation="read", paths=(f"{root}/secret.txt",), risk="low", metadata=META
        ),
        ExecutionAction(
            kind="write",
            operation="write",
            paths=(f"{root}/new/file.txt",),
            risk="medium",
            metadata=META,
        ),
        ExecutionAction(
            kind="edit",
            operation="edit",
            paths=(f"{root}/secret.txt",),
            risk="medium",
            metadata=META,
        ),
    ]


async def test_deny_all_means_no_side_effect_and_the_reason_is_returned(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    (tmp_path / "secret.txt").write_text("top secret\n")
    deny = policy(allow=False)
    by_name = tools(tmp_path, deny)
    for name, arguments in calls(tmp_path):
        result = await by_name[name].execute(arguments, context())
        assert result.error is not None and result.error.code == "execution_denied"
        assert result.error.message == f"{name} is not allowed here"
        assert "top secret" not in render_tool_result(result)
    assert not (tmp_path / "canary").exists()
    assert not (tmp_path / "new").exists()
    assert (tmp_path / "secret.txt").read_text() == "top secret\n"
    assert len(deny.actions) == 4


async def test_recording_policy_sees_exactly_the_design_actions(
    tmp_path: Path, context: Any, policy: Any
) -> None:
    (tmp_path / "secret.txt").write_text("top secret\n")
    recorder = policy()
    by_name = tools(tmp_path, recorder)
    controller = AbortController()
    for name, arguments in calls(tmp_path):
        result = await by_name[name].execute(arguments, context(controller.signal))
        assert not result.is_error, result.error
    assert recorder.actions == expected_actions(tmp_path)
    assert all(action.signal is controller.signal for action in recorder.actions)


async def test_modified_actions_are_honoured(tmp_path: Path, context: Any, policy: Any) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "other.txt").write_text("other\n")
    shell = tools(
        tmp_path, policy(modified={"command": "pwd; echo rewritten", "cwd": str(tmp_path / "sub")})
    )
    result = await shell["shell"].execute({"command": "echo original"}, context())
    assert result.content[0].text == f"{tmp_path}/sub\nrewritten"  # type: ignore[union-attr]
    redirected = tools(tmp_path, policy(modified={"paths": [str(tmp_path / "other.txt")]}))
    read = await redirected["read"].execute({"path": "asked.txt"}, context())
    assert read.content[0].text == "other"  # type: ignore[union-attr]
    await redirected["write"].execute({"path": "asked.txt", "content": "moved"}, context())
    assert (tmp_path / "other.txt").read_text() == "moved" and not (tmp_path / "asked.txt").exists()
    two = tools(tmp_path, policy(modified={"paths": ["a", "b"]}))
    refused = await two["write"].execute({"path": "x", "content": "y"}, context())
    assert refused.error is not None and "exactly one" in refused.error.message


async def test_raising_and_async_policies(tmp_path: Path, context: Any) -> None:
    class Raises:
        def check(self, action: ExecutionAction) -> ExecutionDecision:
            raise RuntimeError("policy store offline")

    class AsyncAllow:
        async def check(self, action: ExecutionAction) -> ExecutionDecision:
            return ExecutionDecision(allowed=True)

    failed = await tools(tmp_path, Raises())["write"].execute(
        {"path": "f", "content": "x"}, context()
    )
    assert failed.error is not None and "policy store offline" in failed.error.message
    assert not (tmp_path / "f").exists()
    ok = await tools(tmp_path, AsyncAllow())["write"].execute(
        {"path": "f", "content": "x"}, context()
    )
    assert not ok.is_error and (tmp_path / "f").read_text() == "x"


async def test_an_aborted_call_does_nothing(tmp_path: Path, context: Any, policy: Any) -> None:
    controller = AbortController()
    controller.abort("stop")
    recorder = policy()
    by_name = tools(tmp_path, recorder)
    for name, arguments in calls(tmp_path):
        result = await by_name[name].execute(arguments, context(controller.signal))
        assert result.error is not None and result.error.code == "aborted", name
    assert recorder.actions == [] and not (tmp_path / "canary").exists()


@pytest.mark.parametrize("arguments", [None, [], "text", {"path": ["a"]}, {"command": {"x": 1}}])
async def test_tools_never_raise_on_garbage(
    tmp_path: Path, context: Any, arguments: object
) -> None:
    for tool in create_coding_tools(tmp_path):
        result = await tool.execute(arguments, context())  # type: ignore[arg-type]
        assert result.is_error and result.name == tool.name
