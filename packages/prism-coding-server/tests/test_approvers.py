"""The operator's approvers in process: the terminal approver on a real pseudo-terminal."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import anyio
import anyio.lowlevel
import pytest

from prism.coding_server._approver import TtyApprover
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


class Prompt:
    @staticmethod
    def describe() -> str:
        return "shell exec command 'python3 mark.py'"


@contextlib.contextmanager
def terminal() -> Iterator[tuple[int, str]]:
    """(the master side a person would type into, the terminal's path)."""
    master, slave = os.openpty()
    os.set_blocking(master, False)
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


async def read_until(master: int, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        await anyio.wait_readable(master)
        with contextlib.suppress(BlockingIOError):
            seen += os.read(master, 4096)
    return seen


async def ask(approver: TtyApprover, master: int, typed: bytes | None) -> tuple[bool, bytes]:
    answers: list[bool] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            answers.append(await approver(Prompt()))

        group.start_soon(run)
        shown = await read_until(master, b"[y/N] ")
        if typed is not None:
            os.write(master, typed)
    return answers[0], shown


@pytest.mark.parametrize(
    ("typed", "approved"),
    [(b"y\n", True), (b"YES\r", True), (b"n\n", False), (b"\n", False), (b"yess\n", False)],
)
async def test_the_terminal_approver_approves_only_a_yes(typed: bytes, approved: bool) -> None:
    with anyio.fail_after(scaled(20)), terminal() as (master, path):
        approver = TtyApprover(scaled(10), path=path)
        answer, shown = await ask(approver, master, typed)
    assert answer is approved
    assert b"python3 mark.py" in shown


async def test_no_answer_in_time_denies_and_earlier_keys_do_not_count() -> None:
    with anyio.fail_after(scaled(20)), terminal() as (master, path):
        os.write(master, b"y\n")  # typed before any question: must not approve it
        await anyio.lowlevel.checkpoint()
        approver = TtyApprover(0.5, path=path)
        answer, _ = await ask(approver, master, None)
    assert answer is False
