"""Test doubles for hosts and demos (a scripted stand-in for an LLM, recording, policy-checked and
hanging tools, a host that aborts after a delay), an event-loop heartbeat for loop-blocking work,
and the test time factor."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ._adapter_doubles import ReadsOnlyPolicy, abort_after, hanging_tool, policy_checked_tool
from ._heartbeat import HEARTBEAT_PERIOD, longest_loop_gap
from ._messages import ModelRequest, ModelResponse
from ._recording_tools import RecordingTools
from ._time_factor import (
    TIME_FACTOR_ENV,
    check_time_factor,
    scaled,
    set_time_factor,
    time_factor,
)

__all__ = [
    "HEARTBEAT_PERIOD",
    "TIME_FACTOR_ENV",
    "ReadsOnlyPolicy",
    "RecordingTools",
    "ScriptedProvider",
    "abort_after",
    "check_time_factor",
    "hanging_tool",
    "longest_loop_gap",
    "policy_checked_tool",
    "scaled",
    "set_time_factor",
    "time_factor",
]


class ScriptedProvider:
    """A fake model that returns ``responses`` in order and records every request.

    Running out of responses raises ``RuntimeError`` (the run then ends ``failed``).
    """

    def __init__(self, responses: Sequence[ModelResponse]) -> None:
        self._responses = tuple(responses)
        self._lock = threading.Lock()
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the next scripted response."""
        with self._lock:
            index = len(self.requests)
            self.requests.append(request)
        if index >= len(self._responses):
            raise RuntimeError(
                f"scripted provider request {index + 1}: has no response "
                f"(the ScriptedProvider has only {len(self._responses)} responses)"
            )
        return self._responses[index]
