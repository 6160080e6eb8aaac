"""Approval waits: only True approves, bounded by the timeout, abortable, errors deny."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from prism.coding_security._approval import ApprovalCache, ApprovalRequest, ask_approval
from prism.core import AbortController, ExecutionAction
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


def _action(**overrides: Any) -> ExecutionAction:
    fields: dict[str, Any] = {
        "kind": "shell",
        "operation": "execute",
        "command": "git push origin main",
        "cwd": "/work",
        "paths": ("/work",),
        "metadata": {"run_id": "r1", "session_id": "s1"},
    }
    fields.update(overrides)
    return ExecutionAction(**fields)


async def test_true_approves_and_the_request_carries_the_action() -> None:
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    action = _action()
    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(approve, action, reason="why", timeout_seconds=5)
    assert outcome.approved
    assert seen[0].action is action
    assert seen[0].reason == "why"
    assert not seen[0].signal.aborted


def _answering(answer: object) -> Any:
    """A deliberately mistyped callback, as a careless host would write it."""

    def approve(request: ApprovalRequest) -> Any:
        return answer

    return approve


@pytest.mark.parametrize("answer", [1, "yes", [True], 1.0, object()])
async def test_truthy_values_that_are_not_true_deny(answer: object) -> None:
    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(_answering(answer), _action(), reason="r", timeout_seconds=5)
    assert not outcome.approved
    assert outcome.reason is not None
    assert "only True approves" in outcome.reason


@pytest.mark.parametrize("answer", [False, None, 0, ""])
async def test_falsy_answers_deny(answer: object) -> None:
    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(_answering(answer), _action(), reason="r", timeout_seconds=5)
    assert not outcome.approved
    assert outcome.reason


async def test_sync_callback_that_returns_an_awaitable_is_awaited() -> None:
    async def later() -> bool:
        await anyio.lowlevel.checkpoint()
        return True

    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(lambda _: later(), _action(), reason="r", timeout_seconds=5)
    assert outcome.approved


async def test_async_callback_is_bounded_by_the_timeout() -> None:
    async def never(request: ApprovalRequest) -> bool:
        await anyio.sleep_forever()
        return True

    started = time.monotonic()
    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(never, _action(), reason="r", timeout_seconds=0.2)
    assert not outcome.approved
    assert outcome.reason is not None
    assert "timed out after 0.2 s" in outcome.reason
    assert time.monotonic() - started < scaled(2)


async def test_blocking_sync_callback_is_bounded_and_told_through_its_signal() -> None:
    released = threading.Event()

    def blocking(request: ApprovalRequest) -> bool:
        request.signal.add_callback(released.set)
        released.wait(10)
        return True  # too late: must be ignored

    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(blocking, _action(), reason="r", timeout_seconds=0.2)
    assert not outcome.approved
    assert "timed out" in (outcome.reason or "")
    assert released.wait(2), "the request signal was not aborted when the wait timed out"


async def test_abort_of_the_call_ends_a_pending_approval() -> None:
    controller = AbortController()
    asked = anyio.Event()

    async def pending(request: ApprovalRequest) -> bool:
        asked.set()
        await anyio.sleep_forever()
        return True

    async def abort_soon() -> None:
        await asked.wait()
        controller.abort("user pressed stop")

    started = time.monotonic()
    with anyio.fail_after(scaled(5)):
        async with anyio.create_task_group() as group:
            group.start_soon(abort_soon)
            outcome = await ask_approval(
                pending, _action(signal=controller.signal), reason="r", timeout_seconds=30
            )
    assert not outcome.approved
    assert "aborted" in (outcome.reason or "")
    assert time.monotonic() - started < scaled(2)


async def test_already_aborted_call_is_denied_without_waiting() -> None:
    controller = AbortController()
    controller.abort("gone")
    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(
            lambda _: True, _action(signal=controller.signal), reason="r", timeout_seconds=30
        )
    assert not outcome.approved
    assert "aborted" in (outcome.reason or "")


@pytest.mark.parametrize("is_async", [True, False])
async def test_raising_callback_denies_with_the_error(is_async: bool) -> None:
    def boom(request: ApprovalRequest) -> bool:
        raise RuntimeError("ui crashed")

    async def aboom(request: ApprovalRequest) -> bool:
        raise RuntimeError("ui crashed")

    with anyio.fail_after(scaled(5)):
        outcome = await ask_approval(
            aboom if is_async else boom, _action(), reason="r", timeout_seconds=5
        )
    assert not outcome.approved
    assert outcome.reason is not None
    assert "RuntimeError: ui crashed" in outcome.reason


def test_describe_escapes_newlines_for_prompts() -> None:
    controller = AbortController()
    request = ApprovalRequest(
        action=_action(command="echo a\nrm -rf x"), signal=controller.signal, reason="newline"
    )
    line = request.describe()
    assert "\n" not in line
    assert "echo a\\nrm -rf x" in line


def test_cache_keys_need_a_scope_id() -> None:
    cache = ApprovalCache("run")
    assert cache.key(_action(metadata={})) is None
    assert cache.key(_action(metadata={"run_id": ""})) is None
    assert cache.key(_action(metadata={"run_id": 7})) is None
    assert cache.key(_action()) != cache.key(_action(metadata={"run_id": "r2"}))
    session = ApprovalCache("session")
    assert session.key(_action(metadata={"run_id": "r1"})) is None
    assert session.key(_action()) is not None


def test_cache_is_lru_bounded() -> None:
    cache = ApprovalCache("run", max_entries=3)
    keys = [cache.key(_action(command=f"c{i}")) for i in range(4)]
    for key in keys[:3]:
        assert key is not None
        cache.add(key)
    assert keys[0] is not None
    assert cache.contains(keys[0])
    assert keys[3] is not None
    cache.add(keys[3])
    assert len(cache) == 3
    assert cache.contains(keys[0])
    assert cache.contains(keys[3])
    assert keys[1] is not None
    assert not cache.contains(keys[1])
