"""A stdlib-only MCP server over stdio, well-behaved or hostile on purpose (no SDK needed).

Run ``python -m prism.conformance._hostile_mcp --mode MODE``. It speaks newline-delimited
JSON-RPC with the legacy ``initialize`` handshake (``server/discover`` gets ``-32601`` so
2026-aware clients fall back at once). In mode ``ok`` every tool does what its name says; in any
other mode every ``tools/call`` (except ``pid``, ``env`` and ``stats``) behaves like that mode:

``hang`` never answers; ``flood`` writes ``--size`` bytes of junk lines and server requests
first; ``garbage`` writes junk lines around the answer; ``huge-line`` writes one ``--size``-byte
line (default 200 MB) and no newline; ``id-last`` writes a ``--size`` line whose ``id`` comes
last; ``deep-json`` / ``wide-json`` answer with pathologically nested / wide JSON;
``invalid-utf8`` answers with invalid UTF-8; ``crash`` exits; ``stubborn`` answers normally but
ignores SIGTERM and stdin EOF and keeps a grandchild. ``--tools``, ``--page-size``,
``--duplicate``, ``--bad-names`` and ``--label`` shape the tool listing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from ._hostile_behaviours import HANDLERS, JUNK, MB, Json, schema, tool_default

__all__ = ["MODES", "main"]

MODES = (
    "ok",
    "hang",
    "flood",
    "garbage",
    "huge-line",
    "id-last",
    "deep-json",
    "wide-json",
    "invalid-utf8",
    "crash",
    "stubborn",
)
_ALWAYS_OK = frozenset({"pid", "env", "stats"})
_NORMAL_CALLS = frozenset({"ok", "garbage", "stubborn"})


_BUILTIN: dict[str, tuple[str, Json]] = {
    "echo": ("Return the text.", schema(text="string")),
    "search": ("Return the query and the server label.", schema(query="string")),
    "pid": ("Return this server's pid and process group.", schema()),
    "env": ("Return this server's environment.", schema()),
    "stats": ("Return how many tools/list and tools/call requests arrived.", schema()),
    "sleep": ("Sleep, then answer (cancellable).", schema(seconds="number")),
    "progress": ("Report progress, then answer.", schema(steps="integer")),
    "big": ("Answer with `size` bytes of text.", schema(size="integer", newline="boolean")),
    "content": ("Answer with all five content types and structured content.", schema()),
    "fail": ("Answer with isError.", schema(message="string")),
    "crash": ("Exit the process.", schema()),
    "add_tool": ("Add a tool and announce tools/list_changed.", schema(name="string")),
    "remove_tool": ("Remove a tool and announce tools/list_changed.", schema(name="string")),
    "spawn_grandchild": ("Start a long-lived grandchild; return its pid.", schema()),
}


class Server:
    """The server state: tools, counters, cancelled ids, and one lock around stdout."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.mode: str = args.mode
        self.out = sys.stdout.buffer
        self.lock = threading.Lock()
        self.cancelled: set[Any] = set()
        self.list_requests = 0
        self.calls = 0
        self.progress_tokens: dict[Any, Any] = {}
        self.tools: list[tuple[str, str, Json]] = [(n, d, s) for n, (d, s) in _BUILTIN.items()]
        for extra in filter(None, args.tools.split(",")):
            self.tools.append((extra, f"Extra tool {extra}.", schema(query="string")))
        if args.duplicate:
            self.tools.append((args.duplicate, "A duplicate name.", schema()))
        if args.bad_names:
            self.tools.append(("bad name!", "An invalid name.", schema()))
            self.tools.append(("x" * 200, "A name that is too long.", schema()))

    # -- output ----------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        try:
            with self.lock:
                self.out.write(data)
                self.out.flush()
        except (BrokenPipeError, ValueError):
            os._exit(0)

    def send(self, obj: Json) -> None:
        self.write(json.dumps(obj).encode() + b"\n")

    def result(self, rid: Any, result: Json) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def text(self, rid: Any, text: str, structured: Any = None, is_error: bool = False) -> None:
        result: Json = {"content": [{"type": "text", "text": text}]}
        if structured is not None:
            result["structuredContent"] = structured
        if is_error:
            result["isError"] = True
        self.result(rid, result)

    def write_big(self, rid: Any, size: int, *, newline: bool, id_last: bool) -> None:
        """One text result of ``size`` bytes, streamed in 1 MiB chunks (never built in memory)."""
        ident = json.dumps(rid).encode()
        chunk = b"y" * MB
        with self.lock:
            try:
                if id_last:
                    self.out.write(b'{"result":{"content":[{"type":"text","text":"')
                else:
                    self.out.write(b'{"jsonrpc":"2.0","id":' + ident + b',"result":{"content":[')
                    self.out.write(b'{"type":"text","text":"')
                left = size
                while left > 0:
                    self.out.write(chunk[: min(left, MB)])
                    left -= MB
                if not newline:
                    self.out.flush()
                    time.sleep(3600)
                tail = b',"jsonrpc":"2.0","id":' + ident + b"}" if id_last else b"}"
                self.out.write(b'"}]}' + tail + b"\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):
                os._exit(0)

    # -- protocol ------------------------------------------------------------------------

    def handle(self, msg: Json) -> None:
        method, rid = msg.get("method"), msg.get("id")
        if method == "notifications/cancelled":
            self.cancelled.add((msg.get("params") or {}).get("requestId"))
        if rid is None or not isinstance(method, str):
            return
        if self.mode == "garbage":
            self.write(b"".join(JUNK))
        if method == "initialize":
            self.result(rid, self.init_result(msg))
        elif method == "tools/list":
            self.list_requests += 1
            self.result(rid, self.list_page((msg.get("params") or {}).get("cursor")))
        elif method == "tools/call":
            self.calls += 1
            params = msg.get("params") or {}
            threading.Thread(target=self.call, args=(rid, params), daemon=True).start()
        elif method == "ping":
            self.result(rid, {})
        else:
            self.error(rid, -32601, f"Method not found: {method}")

    def init_result(self, msg: Json) -> Json:
        asked = (msg.get("params") or {}).get("protocolVersion")
        known = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
        return {
            "protocolVersion": asked if asked in known else "2025-11-25",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": f"hostile-{self.mode}", "version": "1"},
        }

    def list_page(self, cursor: Any) -> Json:
        start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
        size = self.args.page_size or len(self.tools)
        page = self.tools[start : start + size]
        out: Json = {"tools": [{"name": n, "description": d, "inputSchema": s} for n, d, s in page]}
        if start + size < len(self.tools):
            out["nextCursor"] = str(start + size)
        return out

    def call(self, rid: Any, params: Json) -> None:
        name = params.get("name")
        args = params.get("arguments") or {}
        self.progress_tokens[rid] = (params.get("_meta") or {}).get("progressToken", rid)
        if name not in {t[0] for t in self.tools}:
            self.text(rid, f"Unknown tool: {name}", is_error=True)
            return
        behaviour = name if self.mode in _NORMAL_CALLS or name in _ALWAYS_OK else self.mode
        handler = HANDLERS.get(str(behaviour), tool_default)
        handler(self, rid, str(name), args)

    def announce(self) -> None:
        self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def _stubborn() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve stdin until EOF (``stubborn``: forever)."""
    parser = argparse.ArgumentParser(prog="python -m prism.conformance._hostile_mcp")
    parser.add_argument("--mode", choices=MODES, default="ok")
    parser.add_argument("--size", type=int, default=200 * 1000 * 1000)
    parser.add_argument("--tools", default="")
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--duplicate", default="")
    parser.add_argument("--bad-names", action="store_true")
    parser.add_argument("--label", default="hostile")
    args = parser.parse_args(argv)
    if args.mode == "stubborn":
        _stubborn()
    server = Server(args)
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict):
            server.handle(msg)
    while args.mode == "stubborn":
        time.sleep(1)
    with server.lock:  # skip interpreter shutdown: it can wait on a finishing call thread
        server.out.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
