"""An httpx2 client whose responses are capped while they are read, for the SDK's HTTP transport.

The SDK reads ``application/json`` bodies whole with no limit and bounds only SSE events. Our
transport wrapper caps every body (and every SSE event) at ``max_result_bytes``, refuses
compressed bodies (a small gzip can inflate without bound) and runs the complexity check before
the SDK parses. A refusal raises ``ResponseTooLarge``, which the SDK turns into an error for that
one request; the call that caused it is marked through a context variable the SDK copies into
its POST task, so the bridge can report ``mcp_result_too_large`` precisely.

It also watches statuses: a 404 (or a 400 saying the session is unknown) to a request that
carried an ``Mcp-Session-Id`` means the server lost our session, which the bridge treats as a
connection fault; a 401/403 is remembered so errors can name it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextvars import ContextVar
from http import HTTPStatus

import httpx2

from ._deep import shallow_tools
from ._limits import cap_note, complexity_problem
from ._transports import StreamableHttpTransport

__all__ = [
    "SSE_SLACK_BYTES",
    "CallMarks",
    "HttpWatch",
    "ResponseTooLarge",
    "current_call",
    "make_http_client",
]


SSE_SLACK_BYTES = 4_096
"""SSE framing (``event:``, ``id:``, ``data:`` lines) allowed on top of the message cap."""
_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")


_UNKNOWN_SESSION = re.compile(
    rb"session[^\n]{0,40}?(not found|unknown|invalid|expired|terminated|does not exist)"
    rb"|\b(no|unknown|invalid|missing|expired|stale)\b[^\n.]{0,20}?\bsession\b",
    re.IGNORECASE,
)
_SESSION_BODY_BYTES = 65_536


class CallMarks:
    """What the transport learned about the request of one call (set from the POST task)."""

    __slots__ = ("session_lost", "status", "too_large")

    def __init__(self) -> None:
        self.too_large: str | None = None
        self.status: int | None = None
        self.session_lost = False


class HttpWatch:
    """What the transport learned about a connection as a whole (from any of its requests)."""

    __slots__ = ("auth_status", "session_lost")

    def __init__(self) -> None:
        self.session_lost = False
        self.auth_status: int | None = None


def describe_status(status: int | None) -> str:
    """``" (HTTP 401 Unauthorized)"`` for an error status, else ``""``."""
    if status is None or status < 400:
        return ""
    try:
        phrase = f" {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = ""
    return f" (HTTP {status}{phrase})"


current_call: ContextVar[CallMarks | None] = ContextVar("prism_mcp_call", default=None)


class ResponseTooLarge(httpx2.StreamError, httpx2.SSEError):
    """A response body or SSE event broke the byte cap or the complexity check."""

    def __init__(self, message: str) -> None:
        httpx2.StreamError.__init__(self, message)


def _refuse(marks: CallMarks | None, reason: str) -> ResponseTooLarge:
    if marks is not None and marks.too_large is None:
        marks.too_large = reason
    return ResponseTooLarge(reason)


class _BodyCap(httpx2.AsyncByteStream):
    """Reads a whole (non-SSE) body up to the cap, checks it, then hands it on in one piece."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        cap: int,
        marks: CallMarks | None,
        length: str | None,
        listing: bool,
    ) -> None:
        self._inner, self._cap, self._marks, self._length = inner, cap, marks, length
        self._listing = listing

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._length is not None and self._length.isdigit() and int(self._length) > self._cap:
            raise _refuse(
                self._marks, f"a response of {self._length} bytes, over {cap_note(self._cap)}"
            )
        buf = bytearray()
        async for chunk in self._inner:
            buf += chunk
            if len(buf) > self._cap:
                raise _refuse(self._marks, f"a response larger than {cap_note(self._cap)}")
        problem = complexity_problem(buf, self._cap)
        if problem is not None:
            raise _refuse(self._marks, f"a response too complex to parse safely: {problem}")
        shallow = shallow_tools(buf) if self._listing else None
        if shallow is not None:
            yield shallow
        elif buf:
            yield bytes(buf)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _SSECap(httpx2.AsyncByteStream):
    """Passes an event stream on event by event, refusing any event over the cap."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, cap: int, marks: CallMarks | None, listing: bool
    ) -> None:
        self._inner, self._cap, self._marks, self._listing = inner, cap, marks, listing

    def _check(self, events: bytes) -> bytes:
        """``events`` checked; for a listing, with over-deep tool schemas replaced."""
        changed = False
        out: list[bytes] = []
        for event in _BOUNDARY.split(events):
            if len(event) > self._cap + SSE_SLACK_BYTES:
                raise _refuse(
                    self._marks, f"an event of {len(event)} bytes, over {cap_note(self._cap)}"
                )
            problem = complexity_problem(event, self._cap)
            if problem is not None:
                raise _refuse(self._marks, f"an event too complex to parse safely: {problem}")
            if self._listing:
                lines = event.split(b"\n")
                for i, line in enumerate(lines):
                    shallow = shallow_tools(line[5:]) if line.startswith(b"data:") else None
                    if shallow is not None:
                        lines[i], changed = b"data: " + shallow, True
                event = b"\n".join(lines)
            out.append(event)
        return b"\n\n".join(out) if changed else events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = bytearray()
        async for chunk in self._inner:
            start = max(0, len(pending) - 3)
            pending += chunk
            cut = 0
            for found in _BOUNDARY.finditer(pending, start):
                cut = found.end()
            if cut:
                complete = bytes(pending[:cut])
                del pending[:cut]
                yield self._check(complete)
            if len(pending) > self._cap + SSE_SLACK_BYTES:
                raise _refuse(self._marks, f"an event larger than {cap_note(self._cap)}")
        if pending:
            yield self._check(bytes(pending))

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Bytes(httpx2.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._body:
            yield self._body


async def _read_small(stream: httpx2.AsyncByteStream, limit: int) -> bytes | None:
    """The whole body if it is at most ``limit`` bytes, else ``None`` (the stream is closed)."""
    buf = bytearray()
    try:
        async for chunk in stream:
            buf += chunk
            if len(buf) > limit:
                return None
    finally:
        await stream.aclose()
    return bytes(buf)


def _is_listing(request: httpx2.Request) -> bool:
    """Whether the request is a ``tools/list`` (its answer may need ``shallow_tools``)."""
    try:
        return request.method == "POST" and b'"tools/list"' in request.content
    except httpx2.RequestNotRead:
        return False


class _CappingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, cap: int, watch: HttpWatch) -> None:
        self._inner, self._cap, self._watch = inner, cap, watch

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        marks = current_call.get()
        stream: httpx2.AsyncByteStream = response.stream
        status = response.status_code
        if status >= 400:
            stream = await self._error_status(request, status, stream, marks)
        headers = response.headers
        encoding = headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            reason = f"a compressed response ({encoding}), which cannot be bounded"
            stream = _Refused(stream, marks, reason)
        elif headers.get("content-type", "").lower().startswith("text/event-stream"):
            stream = _SSECap(stream, self._cap, marks, _is_listing(request))
        else:
            length = headers.get("content-length")
            stream = _BodyCap(stream, self._cap, marks, length, _is_listing(request))
        return httpx2.Response(
            status, headers=headers, stream=stream, request=request, extensions=response.extensions
        )

    async def _error_status(
        self,
        request: httpx2.Request,
        status: int,
        stream: httpx2.AsyncByteStream,
        marks: CallMarks | None,
    ) -> httpx2.AsyncByteStream:
        """Record an error status; recognise a lost session (404, or a 400 that says so)."""
        if marks is not None:
            marks.status = status
        if status in (401, 403):
            self._watch.auth_status = status
        if "mcp-session-id" not in request.headers:
            return stream
        lost = status == 404
        if status == 400:
            body = await _read_small(stream, _SESSION_BODY_BYTES)
            lost = body is not None and _UNKNOWN_SESSION.search(body) is not None
            stream = _Bytes(body or b"")
        if lost and request.method != "DELETE":
            self._watch.session_lost = True
            if marks is not None:
                marks.session_lost = True
        return stream

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Refused(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, marks: CallMarks | None, reason: str) -> None:
        self._inner, self._marks, self._reason = inner, marks, reason

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        raise _refuse(self._marks, self._reason)

    async def aclose(self) -> None:
        await self._inner.aclose()


def make_http_client(
    config: StreamableHttpTransport,
    *,
    max_message_bytes: int,
    connect_timeout_seconds: float,
    call_timeout_seconds: float,
    watch: HttpWatch,
) -> httpx2.AsyncClient:
    """An ``httpx2.AsyncClient`` for the SDK transport: capped bodies, no env proxies, no gzip."""
    timeout = httpx2.Timeout(connect_timeout_seconds, read=max(300.0, call_timeout_seconds + 30.0))
    return httpx2.AsyncClient(
        headers={"accept-encoding": "identity", **config.headers},
        timeout=timeout,
        transport=_CappingTransport(httpx2.AsyncHTTPTransport(), max_message_bytes, watch),
        trust_env=False,
        follow_redirects=False,
    )
