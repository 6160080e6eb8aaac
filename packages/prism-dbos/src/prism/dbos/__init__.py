"""Durable, resumable, distributed Prism tool execution on DBOS.

A run is a DBOS workflow; each model request and each tool call's whole pipeline is a recorded
step. SQLite embedded by default, Postgres when several workers share the work. asyncio only.
"""

from __future__ import annotations

from ._agent import DurableAgent, DurableAgentOptions
from ._approval import (
    AWAITING_APPROVAL_EVENT,
    ApprovalDelivery,
    send_approval,
    send_approval_async,
)
from ._batch import durable_dispatch_tool_calls_in_order
from ._call import OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_MESSAGE
from ._guard import DurableBackendError
from ._launch import default_executor_id, launch_dbos
from ._options import ApprovalOptions, DbosBackendOptions, QueueOptions
from ._queue import WORKER_LOST, QueueConflictError, register_tool_queue
from ._toolset import DurableToolset, UnknownToolsetError, register_toolset

__all__ = [
    "AWAITING_APPROVAL_EVENT",
    "OUTCOME_UNKNOWN",
    "OUTCOME_UNKNOWN_MESSAGE",
    "WORKER_LOST",
    "ApprovalDelivery",
    "ApprovalOptions",
    "DbosBackendOptions",
    "DurableAgent",
    "DurableAgentOptions",
    "DurableBackendError",
    "DurableToolset",
    "QueueConflictError",
    "QueueOptions",
    "UnknownToolsetError",
    "default_executor_id",
    "durable_dispatch_tool_calls_in_order",
    "launch_dbos",
    "register_tool_queue",
    "register_toolset",
    "send_approval",
    "send_approval_async",
]
