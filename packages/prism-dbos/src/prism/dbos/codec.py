"""The plain-data forms prism-dbos records (calls, results, transcripts, run results).

Public so that tools around a durable app (a test harness, an admin script reading recorded
runs) can print or compare what a run recorded without importing private modules.
"""

from __future__ import annotations

from ._codec import (
    Plain,
    decode_call,
    decode_messages,
    decode_result,
    decode_run,
    encode_call,
    encode_messages,
    encode_result,
    encode_run,
)

__all__ = [
    "Plain",
    "decode_call",
    "decode_messages",
    "decode_result",
    "decode_run",
    "encode_call",
    "encode_messages",
    "encode_result",
    "encode_run",
]
