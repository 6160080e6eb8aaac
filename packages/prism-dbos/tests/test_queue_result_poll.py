"""A queued call without a result deadline is collected by polling its workflow's status: at
the queue's ``polling_interval_seconds``, not DBOS's default of once a second.

In this process (the session's ``durable_host`` on SQLite, which also works the queue): one
side-effecting call queued with a 0.05 s poll must come back well under a second.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest
from dbos import DBOS, SetWorkflowID

from prism.core import ToolCall, ToolDefinition, ToolRegistry
from prism.core.testing import scaled
from prism.dbos import (
    DurableToolset,
    QueueOptions,
    durable_dispatch_tool_calls_in_order,
    register_tool_queue,
    register_toolset,
)

pytestmark = pytest.mark.parametrize("anyio_backend", ["asyncio"])  # DBOS workflows: asyncio

POLL = 0.05
QUEUE = QueueOptions(
    name="prism-test-result-poll", polling_interval_seconds=POLL, result_deadline_seconds=None
)


async def _ok(arguments: Any, context: Any) -> str:
    return "ok"


TOOLSET = register_toolset(
    DurableToolset(
        name="result-poll",
        tools=ToolRegistry([ToolDefinition(name="act", execute=_ok, parameters={})]),
        queue=QUEUE,
    )
)


@DBOS.workflow(name="prism.test.result_poll")
async def _one_queued_call() -> list[str | None]:
    results = await durable_dispatch_tool_calls_in_order(
        [ToolCall(id="c0", name="act", arguments={})], toolset=TOOLSET
    )
    return [None if r.error is None else r.error.message for r in results]


@pytest.mark.anyio
async def test_a_queued_result_without_deadline_is_collected_at_the_queue_poll(
    durable_host: None,
) -> None:
    await register_tool_queue(QUEUE)
    timings = []
    async with asyncio.timeout(scaled(60)):  # a call no worker takes would wait forever
        with SetWorkflowID(f"result-poll-warm-{os.urandom(8).hex()}"):
            assert await _one_queued_call() == [None]  # the queue's worker thread is running
        for _ in range(3):
            started = time.monotonic()
            with SetWorkflowID(f"result-poll-{os.urandom(8).hex()}"):
                assert await _one_queued_call() == [None]
            timings.append(time.monotonic() - started)
    # DBOS's own default checks a result once a second: the queued call is not done at the
    # first check, so without the queue's poll each turn takes a second or more.
    assert min(timings) < scaled(0.6), timings
