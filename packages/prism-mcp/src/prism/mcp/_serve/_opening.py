"""The request that would open a session, checked before any session exists: only a POSTed
``initialize`` may open one, and its body is read within a server-wide byte budget."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["OpeningBudget", "read_opening", "refuse", "replay"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class OpeningBudget:
    """Bytes of session-opening bodies held at once. They belong to no session yet, so the
    per-session bounds do not cover them; beyond ``limit`` a new opening is refused (503)."""

    __slots__ = ("held", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def take(self, size: int) -> bool:
        """Reserve ``size`` bytes; ``False`` when that would pass the limit."""
        if self.held + size > self.limit:
            return False
        self.held += size
        return True

    def give(self, size: int) -> None:
        """Return a reservation."""
        self.held -= size


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == b"content-length":
            text = bytes(value).decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


async def refuse(send: Send, status: int, message: str) -> None:
    """A JSON-RPC error body (no request id) with ``status``."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive, cap: int) -> bytes | None:
    """The whole body, or ``None`` once it passes ``cap`` bytes (or the client left)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _is_initialize(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


async def read_opening(
    scope: Scope, receive: Receive, send: Send, *, budget: OpeningBudget, max_bytes: int
) -> tuple[bytes, int] | None:
    """The body of a request without a session id and the bytes it reserved from ``budget``
    (the caller gives them back), or ``None`` once it is answered: 400 for anything but a
    POSTed ``initialize`` (as the SDK answers, but before a session exists), 413 for a body
    over ``max_bytes``, 503 when the budget is spent."""
    if scope.get("method") != "POST":
        await refuse(send, 400, "Bad Request: Missing session ID")
        return None
    declared = _content_length(scope)
    if declared is not None and declared > max_bytes:
        await refuse(send, 413, f"request body over {max_bytes} bytes (max_request_bytes)")
        return None
    reserved = max_bytes if declared is None else declared
    if not budget.take(reserved):
        await refuse(send, 503, "too many session-opening requests in flight; retry later")
        return None
    body = await _read_body(receive, reserved)
    message = None
    if body is None:
        message = (413, f"request body over {reserved} bytes (declared or max_request_bytes)")
    elif not _is_initialize(body):
        message = (400, "Bad Request: Missing session ID")
    if body is None or message is not None:
        budget.give(reserved)
        if message is not None:
            await refuse(send, *message)
        return None
    return body, reserved


def replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` that yields ``body`` first, then whatever the client sends (a disconnect)."""
    sent = False

    async def again() -> MutableMapping[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
