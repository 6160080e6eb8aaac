"""Byte-level checks on raw server messages, done before any JSON parser sees them.

A message within the byte cap can still explode in memory when parsed (10 MB of ``{}`` is 3.3
million dicts, ~650 MB). We count containers and separators outside strings, cheaply, and refuse
messages that would blow up. We also recover a JSON-RPC ``id`` from the head or tail of a message
we will not parse, so its request fails at once instead of waiting for a timeout.
"""

from __future__ import annotations

import json
import re

__all__ = ["READ_SLACK_BYTES", "cap_note", "complexity_problem", "head_id", "read_cap", "tail_id"]

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_SCALAR = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null')
_ID = re.compile(rb'(-?\d+|"[^"\\]*(?:\\.[^"\\]*)*")\s*[,}]')
_TAIL_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]*(?:\\.[^"\\]*)*")\s*}\s*$')
_WS = re.compile(rb"[ \t\n\r]*")
_SMALL = 65_536

RequestId = int | str

READ_SLACK_BYTES = 65_536
"""JSON-RPC framing and escaping allowed on top of twice the result bound."""


def read_cap(max_result_bytes: int) -> int:
    """The byte cap on one server message: ``2 * max_result_bytes + 64 KiB``, fixed before reading.

    A result is bounded by ``max_result_bytes`` the way it is rendered and kept (content, or the
    value when there is no content); the message may also carry the structured twin of the same
    data, so the transport admits twice that, and refuses more before buffering it.
    """
    return 2 * max_result_bytes + READ_SLACK_BYTES


def cap_note(cap: int) -> str:
    """The read cap with the option that sets it, so an error says what to raise."""
    bound = (cap - READ_SLACK_BYTES) // 2
    return f"the read cap of {cap} bytes (2 * max_result_bytes={bound} + 64 KiB)"


def _limits(cap: int) -> tuple[int, int]:
    return max(1_024, cap // 64), max(4_096, cap // 8)


def complexity_problem(data: bytes | bytearray, cap: int) -> str | None:
    """Why parsing ``data`` would cost far more memory than its size, or ``None`` if it is fine.

    Containers (``{``/``[``) are limited to ``cap // 64`` and separators (``,``) to ``cap // 8``,
    counted outside JSON strings. The fast path counts raw bytes; only a message that looks too
    complex pays for stripping its strings.
    """
    if len(data) <= _SMALL:
        return None
    max_containers, max_values = _limits(cap)
    containers = data.count(b"{") + data.count(b"[")
    values = data.count(b",")
    if containers <= max_containers and values <= max_values:
        return None
    stripped = _STRING.sub(b"", data)
    containers = stripped.count(b"{") + stripped.count(b"[")
    values = stripped.count(b",")
    if containers > max_containers:
        return (
            f"it holds {containers} JSON objects/arrays (limit {max_containers}, "
            "which grows with max_result_bytes)"
        )
    if values > max_values:
        return (
            f"it holds {values} JSON values (limit {max_values}, which grows with max_result_bytes)"
        )
    return None


def _as_id(raw: bytes) -> RequestId | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return value


def head_id(head: bytes) -> RequestId | None:
    """The top-level ``id`` of a JSON-RPC message, if it precedes every nested member of ``head``.

    Only top-level scalar members are walked, so an ``"id"`` inside ``result`` is never taken.
    """
    pos = _skip_ws(head, 0)
    if head[pos : pos + 1] != b"{":
        return None
    pos += 1
    while True:
        key = _STRING.match(head, _skip_ws(head, pos))
        if key is None:
            return None
        pos = _skip_ws(head, key.end())
        if head[pos : pos + 1] != b":":
            return None
        pos = _skip_ws(head, pos + 1)
        if key.group() == b'"id"':
            found = _ID.match(head, pos)
            return _as_id(found.group(1)) if found else None
        value = _SCALAR.match(head, pos)
        if value is None:
            return None
        pos = _skip_ws(head, value.end())
        if head[pos : pos + 1] != b",":
            return None
        pos += 1


def _skip_ws(data: bytes, pos: int) -> int:
    """The first position at or after ``pos`` that is not JSON whitespace."""
    return _WS.match(data, pos).end()  # type: ignore[union-attr]  # always matches


def tail_id(tail: bytes) -> RequestId | None:
    """The ``id`` of a message whose last member is ``"id": ...}`` (servers that write it last)."""
    found = _TAIL_ID.search(tail)
    return _as_id(found.group(1)) if found else None
