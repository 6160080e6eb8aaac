"""Approval requests are safe to print: a command cannot repaint the prompt a person reads,
and what the person approves is the original command, which is what runs."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security import ApprovalRequest, CodingApprovalPolicy
from prism.coding_security._printable import quoted, visible
from prism.core import ExecutionAction, ExecutionDecision
from prism.core.testing import scaled

_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
# Looks like `ls` on a terminal: erase the line, return, then a right-to-left override.
ATTACK = "make deploy-production #\x1b[2K\r\u202e\x9b2K\x7fls -la\u200b\u2028\u00a0x"


def _shown_hidden(text: str) -> list[str]:
    return [ch for ch in text if ch != " " and unicodedata.category(ch) in _HIDDEN]


@pytest.fixture
def root(tmp_path: Path) -> str:
    return str(tmp_path.resolve())


@pytest.mark.anyio
async def test_the_repaint_attack_is_escaped_and_the_original_runs(root: str) -> None:
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    policy = CodingApprovalPolicy(roots=[root], approve=approve)
    action = ExecutionAction(
        kind="shell", operation="execute", command=ATTACK, cwd=root, paths=(root,)
    )
    pending = policy.check(action)
    assert not isinstance(pending, ExecutionDecision)
    with anyio.fail_after(scaled(10)):
        decision = await pending
    assert decision.allowed and decision.modified is None  # the approved text runs unchanged
    (request,) = seen
    assert request.action.command == ATTACK
    line = request.describe()
    assert _shown_hidden(line) == []
    for escape in ("\\x1b[2K", "\\r", "\\u202e", "\\x9b", "\\x7f", "\\u200b", "\\u2028", "\\xa0"):
        assert escape in line, escape
    assert "make deploy-production" in line  # the part that runs is shown, not hidden


def test_a_reason_quoting_the_command_is_escaped_too() -> None:
    from prism.core import AbortController

    action = ExecutionAction(kind="shell", operation="exec\u202e", command="ls", cwd="/w")
    request = ApprovalRequest(
        action=action, signal=AbortController().signal, reason="`ls\x1b]0;title\x07` needs approval"
    )
    line = request.describe()
    assert _shown_hidden(line) == []
    assert "\\x1b]0;title\\x07" in line and "exec\\u202e" in line


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_visible_text_hides_nothing_and_keeps_texts_apart(first: str, second: str) -> None:
    for text in (first, second):
        assert _shown_hidden(visible(text)) == []
        assert _shown_hidden(quoted(text)) == []
    if first != second:
        assert visible(first) != visible(second)
        assert quoted(first) != quoted(second)


def test_plain_text_is_unchanged() -> None:
    assert visible("git log --oneline -n 5 'a b'") == "git log --oneline -n 5 'a b'"
    assert visible("größe.txt") == "größe.txt"
    assert quoted('a"b\\c') == '"a\\"b\\\\c"'
