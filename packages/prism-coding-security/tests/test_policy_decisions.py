"""The policy's order of checks: roots, read-only, containment, command analysis, approval."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from prism.coding_security import CodingApprovalPolicy, CommandRule
from prism.coding_security import _policy as policy_module
from prism.coding_security._harden import harden
from prism.core import ExecutionAction, ExecutionDecision, ExecutionDeniedError
from prism.core import assert_execution_allowed as gate

from ._policy_calls import decide, shell

pytestmark = pytest.mark.anyio


class Recorder:
    """An approval callback that records what it was asked and answers ``answer``."""

    def __init__(self, answer: object = False) -> None:
        self.answer = answer
        self.asked: list[ExecutionAction] = []

    def __call__(self, request: Any) -> Any:
        self.asked.append(request.action)
        return self.answer


@pytest.fixture
def root(tmp_path: Path) -> str:
    real = tmp_path.resolve() / "root"
    (real / "src").mkdir(parents=True)
    (real / "src" / "app.py").write_text("x\n")
    return str(real)


def file_action(kind: str, path: str) -> ExecutionAction:
    return ExecutionAction(kind=kind, operation=kind, paths=(path,))


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"approval_cache": "forever"}, ValueError, "approval_cache"),
        ({"approval_timeout_seconds": 0}, ValueError, "approval_timeout_seconds"),
        ({"approval_timeout_seconds": -1.0}, ValueError, "approval_timeout_seconds"),
        ({"approval_timeout_seconds": float("nan")}, ValueError, "approval_timeout_seconds"),
        ({"approval_timeout_seconds": True}, TypeError, "approval_timeout_seconds"),
        ({"approval_timeout_seconds": 86_400.1}, ValueError, "86400"),
        ({"read_only": "yes"}, TypeError, "read_only"),
        ({"deny_metacharacters": 1}, TypeError, "deny_metacharacters"),
        ({"command_rules": ["rm"]}, TypeError, "command_rules"),
        ({"command_rules": "rm"}, TypeError, "command_rules"),
        ({"approve": "yes"}, TypeError, "approve"),
    ],
)
def test_invalid_options_raise_naming_the_option(
    root: str, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as raised:
        CodingApprovalPolicy(roots=[root], **options)
    assert str(raised.value).startswith("CodingApprovalPolicy.")


def test_a_policy_built_directly_checks_its_fields_too(root: str) -> None:
    fields: dict[str, Any] = {
        "roots": (root,),
        "approve": None,
        "read_only": False,
        "command_rules": (),
        "approval_timeout_seconds": 30.0,
        "deny_metacharacters": True,
        "home": root,
    }
    CodingApprovalPolicy(**fields)
    bad_fields = [("read_only", 1, TypeError), ("approval_timeout_seconds", 0, ValueError)]
    for name, bad, error in [*bad_fields, ("roots", ("rel",), ValueError)]:
        with pytest.raises(error, match=f"CodingApprovalPolicy.{name}"):
            CodingApprovalPolicy(**{**fields, name: bad})


def test_roots_are_validated_and_the_timeout_cap_is_inclusive(root: str) -> None:
    with pytest.raises(ValueError, match="roots"):
        CodingApprovalPolicy(roots=["relative"])
    CodingApprovalPolicy(roots=[root], approval_timeout_seconds=86_400)


async def test_no_roots_denies_everything(root: str) -> None:
    policy = CodingApprovalPolicy(roots=[], approve=Recorder(True))
    for action in (shell(root, "ls"), file_action("read", f"{root}/src/app.py")):
        decision = await decide(policy, action)
        assert not decision.allowed
        assert "no workspace roots" in (decision.reason or "")


async def test_contained_file_actions_are_allowed_synchronously(root: str) -> None:
    policy = CodingApprovalPolicy(roots=[root])
    for kind in ("read", "list", "search", "glob", "write", "edit"):
        outcome = policy.check(file_action(kind, f"{root}/src/app.py"))
        assert isinstance(outcome, ExecutionDecision), kind
        assert outcome.allowed, (kind, outcome.reason)


async def test_paths_outside_or_protected_are_denied(root: str) -> None:
    approver = Recorder(True)
    policy = CodingApprovalPolicy(roots=[root], approve=approver)
    cases = [
        file_action("read", "/etc/passwd"),
        file_action("write", f"{root}/../elsewhere.txt"),
        file_action("write", f"{root}/.git/hooks/pre-commit"),
        file_action("edit", f"{root}/.git/config"),
        file_action("write", "relative/with/no/cwd.txt"),
        file_action("read", ""),
        ExecutionAction(kind="read", operation="read"),
    ]
    for action in cases:
        decision = await decide(policy, action)
        assert not decision.allowed, action
        assert decision.reason
    assert approver.asked == []


async def test_shell_cwd_must_be_contained(root: str) -> None:
    policy = CodingApprovalPolicy(roots=[root], approve=Recorder(True))
    decision = await decide(policy, shell(os.path.dirname(root), "ls"))
    assert not decision.allowed
    assert "working directory" in (decision.reason or "")
    missing = ExecutionAction(kind="shell", operation="execute", command="ls")
    assert not (await decide(policy, missing)).allowed
    empty = ExecutionAction(kind="shell", operation="execute", command="  ", cwd=root)
    assert not (await decide(policy, empty)).allowed


async def test_read_only_mode(root: str) -> None:
    approver = Recorder(True)
    policy = CodingApprovalPolicy(roots=[root], approve=approver, read_only=True)
    assert (await decide(policy, file_action("read", f"{root}/src/app.py"))).allowed
    for kind in ("write", "edit", "network"):
        decision = await decide(policy, file_action(kind, f"{root}/src/app.py"))
        assert not decision.allowed
        assert "read-only mode" in (decision.reason or "")
    assert (await decide(policy, shell(root, "git status"))).allowed
    decision = await decide(policy, shell(root, "pytest -q"))
    assert not decision.allowed
    assert "read-only mode" in (decision.reason or "")
    assert approver.asked == []


async def test_without_a_callback_approval_is_required(root: str) -> None:
    policy = CodingApprovalPolicy(roots=[root])
    for action in (shell(root, "pytest -q"), file_action("network", f"{root}/src")):
        decision = await decide(policy, action)
        assert not decision.allowed
        assert (decision.reason or "").startswith("approval required")


async def test_deny_is_never_asked_even_with_an_approving_host(root: str) -> None:
    approver = Recorder(True)
    policy = CodingApprovalPolicy(
        roots=[root],
        approve=approver,
        command_rules=[CommandRule(pattern="*", action="allow")],
        approval_cache="run",
    )
    decision = await decide(policy, shell(root, "rm -rf /", run_id="r"))
    assert not decision.allowed
    assert approver.asked == []


async def test_user_rules_deny_and_ask(root: str) -> None:
    approver = Recorder(False)
    policy = CodingApprovalPolicy(
        roots=[root],
        approve=approver,
        command_rules=[
            CommandRule(pattern="git status", action="ask", reason="confirm"),
            CommandRule(pattern="make deploy *", action="deny", reason="no deploys"),
        ],
    )
    assert not (await decide(policy, shell(root, "make deploy"))).allowed
    assert approver.asked == []
    assert not (await decide(policy, shell(root, "git status"))).allowed
    assert [a.command for a in approver.asked] == ["git status"]


async def test_an_analyser_crash_needs_approval_never_allows(
    root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("bug")

    monkeypatch.setattr(policy_module, "analyze_command", broken)
    approver = Recorder(False)
    policy = CodingApprovalPolicy(roots=[root], approve=approver)
    decision = await decide(policy, shell(root, "ls"))
    assert not decision.allowed
    assert len(approver.asked) == 1


async def test_denial_reaches_the_tool_through_the_core_gate(root: str) -> None:
    policy = CodingApprovalPolicy(roots=[root])
    with pytest.raises(ExecutionDeniedError, match="approval required"):
        await gate(policy, shell(root, "pytest -q"))
    allowed = await gate(policy, shell(root, "ls"))
    assert allowed.command == "ls"
    hardened = await gate(policy, shell(root, "git status"))
    assert hardened.command == harden("git status", [root])
