"""``launch_dbos(notification_poll_seconds=...)`` sets how soon a waiting run sees a message.

On SQLite nothing signals a waiting ``DBOS.recv`` (an approval's decision, a queued call's
result): DBOS's listener thread looks for it once per poll. The session's ``durable_host`` is
launched with a short poll; a run that waits for messages one after another must see each one
within about a poll, and consecutive wake-ups can come no closer than a poll apart.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from dbos import DBOS, SetWorkflowID

from prism.core.testing import scaled

pytestmark = pytest.mark.parametrize("anyio_backend", ["asyncio"])  # DBOS workflows: asyncio

TOPIC = "prism.test.poll"
MESSAGES = 5


@DBOS.workflow(name="prism.test.notification_poll")
async def _receive(count: int, wait_seconds: float) -> list[float]:
    """Wait for ``count`` messages, one after another; when each arrived (``monotonic``)."""
    seen: list[float] = []
    for _ in range(count):
        if await DBOS.recv_async(TOPIC, timeout_seconds=wait_seconds) is None:
            break  # timed out: the test reports the missing message
        seen.append(time.monotonic())
    return seen


async def _until_waiting(run: str, waits: int, until: float) -> None:
    """Until ``run``'s ``waits``-th recv waits: its timeout's sleep step is recorded after the
    waiter is registered and the message table checked, so a message sent now can only reach
    it through a poll."""
    while True:
        steps = await DBOS.list_workflow_steps_async(run, load_output=False)
        if sum(step["function_name"] == "DBOS.sleep" for step in steps) >= waits:
            return
        assert time.monotonic() < until, f"{run} never waited for message {waits}"
        await asyncio.sleep(0.005)


@pytest.mark.anyio
async def test_a_waiting_run_sees_each_message_within_the_configured_poll(
    durable_host: None, durable_host_poll_seconds: float
) -> None:
    poll = durable_host_poll_seconds
    run = f"poll-{os.urandom(8).hex()}"
    until = time.monotonic() + scaled(10)
    with SetWorkflowID(run):
        handle = await DBOS.start_workflow_async(_receive, MESSAGES, scaled(10))
    sent: list[float] = []
    for n in range(MESSAGES):
        await _until_waiting(run, n + 1, until)
        sent.append(time.monotonic())
        await DBOS.send_async(run, n, TOPIC)
    seen = await asyncio.wait_for(handle.get_result(), timeout=scaled(10))
    assert len(seen) == MESSAGES, f"only {len(seen)} of {MESSAGES} messages arrived"
    latencies = [at - sent_at for at, sent_at in zip(seen, sent, strict=True)]
    # each message arrives well inside DBOS's default 1 s poll (measured: <= 0.05 s each;
    # ~1 s each with the setting left out of DBOS's config)
    assert max(latencies) < scaled(0.5), latencies
    # each wait is woken by a later poll than the one before, and polls are `poll` apart;
    # a 1 s poll would take >= 4 s here (measured: 0.23-0.24 s)
    chain = seen[-1] - sent[0]
    assert (MESSAGES - 1) * poll <= chain < scaled(1.5), (chain, latencies)
