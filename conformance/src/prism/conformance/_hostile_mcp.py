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
from collections.abc import Callable
from typing import Any

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
_MB = 1 << 20
_JUNK = (b"this is not json\n", b'{"hello": "valid JSON, not JSON-RPC"}\n', b"\x00\xff\xfe\n")

Json = dict[str, Any]


def _schema(**props: str) -> Json:
    return {"type": "object", "properties": {k: {"type": t} for k, t in props.items()}}


_BUILTIN: dict[str, tuple[str, Json]] = {
    "echo": ("Return the text.", _schema(text="string")),
    "search": ("Return the query and the server label.", _schema(query="string")),
    "pid": ("Return this server's pid and process group.", _schema()),
    "env": ("Return this server's environment.", _schema()),
    "stats": ("Return how many tools/list and tools/call requests arrived.", _schema()),
    "sleep": ("Sleep, then answer (cancellable).", _schema(seconds="number")),
    "progress": ("Report progress, then answer.", _schema(steps="integer")),
    "big": ("Answer with `size` bytes of text.", _schema(size="integer", newline="boolean")),
    "content": ("Answer with all five content types and structured content.", _schema()),
    "fail": ("Answer with isError.", _schema(message="string")),
    "crash": ("Exit the process.", _schema()),
    "add_tool": ("Add a tool and announce tools/list_changed.", _schema(name="string")),
    "remove_tool": ("Remove a tool and announce tools/list_changed.", _schema(name="string")),
    "spawn_grandchild": ("Start a long-lived grandchild; return its pid.", _schema()),
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
            self.tools.append((extra, f"Extra tool {extra}.", _schema(query="string")))
        if args.duplicate:
            self.tools.append((args.duplicate, "A duplicate name.", _schema()))
        if args.bad_names:
            self.tools.append(("bad name!", "An invalid name.", _schema()))
            self.tools.append(("x" * 200, "A name that is too long.", _schema()))

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
        chunk = b"y" * _MB
        with self.lock:
            try:
                if id_last:
                    self.out.write(b'{"result":{"content":[{"type":"text","text":"')
                else:
                    self.out.write(b'{"jsonrpc":"2.0","id":' + ident + b',"result":{"content":[')
                    self.out.write(b'{"type":"text","text":"')
                left = size
                while left > 0:
                    self.out.write(chunk[: min(left, _MB)])
                    left -= _MB
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
            self.write(b"".join(_JUNK))
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
        handler = _HANDLERS.get(str(behaviour), _tool_default)
        handler(self, rid, str(name), args)

    def announce(self) -> None:
        self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


# -- tool behaviours -----------------------------------------------------------------------


def _tool_default(s: Server, rid: Any, name: str, args: Json) -> None:
    s.text(rid, f"{s.args.label}:{name}:{json.dumps(args, sort_keys=True)}")


def _tool_echo(s: Server, rid: Any, name: str, args: Json) -> None:
    s.text(rid, str(args.get("text", "")))


def _tool_search(s: Server, rid: Any, name: str, args: Json) -> None:
    s.text(rid, f"{s.args.label}:{args.get('query', '')}")


def _tool_pid(s: Server, rid: Any, name: str, args: Json) -> None:
    info = {"pid": os.getpid(), "pgid": os.getpgid(0)}
    s.text(rid, json.dumps(info), structured=info)


def _tool_env(s: Server, rid: Any, name: str, args: Json) -> None:
    env = dict(sorted(os.environ.items()))
    s.text(rid, json.dumps(env), structured={"env": env})


def _tool_stats(s: Server, rid: Any, name: str, args: Json) -> None:
    info = {"list_requests": s.list_requests, "calls": s.calls}
    s.text(rid, json.dumps(info), structured=info)


def _tool_sleep(s: Server, rid: Any, name: str, args: Json) -> None:
    deadline = time.monotonic() + float(args.get("seconds", 3600))
    while time.monotonic() < deadline:
        if rid in s.cancelled:
            return
        time.sleep(0.01)
    s.text(rid, "slept")


def _tool_progress(s: Server, rid: Any, name: str, args: Json) -> None:
    token = s.progress_tokens.get(rid, rid)
    steps = int(args.get("steps", 3))
    for i in range(steps):
        params = {"progressToken": token, "progress": i + 1, "total": steps, "message": f"{i + 1}"}
        s.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
    s.text(rid, "done")


def _tool_big(s: Server, rid: Any, name: str, args: Json) -> None:
    size = int(args.get("size", s.args.size))
    s.write_big(rid, size, newline=bool(args.get("newline", True)), id_last=False)


def _tool_content(s: Server, rid: Any, name: str, args: Json) -> None:
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhf"
        "DwAChwGA60e6kgAAAABJRU5ErkJggg=="
    )
    blocks = [
        {"type": "text", "text": "hello"},
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRgAAAABXQVZF", "mimeType": "audio/wav"},
        {
            "type": "resource_link",
            "uri": "file:///tmp/x.txt",
            "name": "x",
            "mimeType": "text/plain",
        },
        {"type": "resource", "resource": {"uri": "mem://n", "mimeType": "text/plain", "text": "t"}},
        {"type": "resource", "resource": {"uri": "mem://b", "blob": "AAEC"}},
    ]
    s.result(rid, {"content": blocks, "structuredContent": {"k": "v"}})


def _tool_fail(s: Server, rid: Any, name: str, args: Json) -> None:
    s.text(rid, str(args.get("message", "it failed")), is_error=True)


def _tool_crash(s: Server, rid: Any, name: str, args: Json) -> None:
    os._exit(3)


def _tool_add(s: Server, rid: Any, name: str, args: Json) -> None:
    added = str(args.get("name", f"dyn_{len(s.tools)}"))
    s.tools.append((added, "Added at runtime.", _schema(query="string")))
    s.announce()
    s.text(rid, added)


def _tool_remove(s: Server, rid: Any, name: str, args: Json) -> None:
    s.tools = [t for t in s.tools if t[0] != args.get("name")]
    s.announce()
    s.text(rid, "removed")


def _tool_grandchild(s: Server, rid: Any, name: str, args: Json) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    s.text(rid, str(child.pid), structured={"pid": child.pid})


def _mode_hang(s: Server, rid: Any, name: str, args: Json) -> None:
    return None


def _mode_flood(s: Server, rid: Any, name: str, args: Json) -> None:
    note = (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'
    )
    block = b"".join(_JUNK) * 64 + note + b'{"jsonrpc":"2.0","id":"srv-%d","method":"ping"}\n'
    sent = 0
    while sent < s.args.size:
        s.write(block % sent)
        sent += len(block)
    s.text(rid, "flooded")


def _mode_huge(s: Server, rid: Any, name: str, args: Json) -> None:
    s.write_big(rid, s.args.size, newline=False, id_last=False)


def _mode_id_last(s: Server, rid: Any, name: str, args: Json) -> None:
    s.write_big(rid, s.args.size, newline=True, id_last=True)


def _mode_deep(s: Server, rid: Any, name: str, args: Json) -> None:
    depth = 100_000
    head = json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    body = b',"result":{"content":[],"structuredContent":' + b"[" * depth + b"]" * depth + b"}}\n"
    s.write(head + body)


def _mode_wide(s: Server, rid: Any, name: str, args: Json) -> None:
    count = max(1, min(s.args.size, 16 * _MB) // 3)
    head = json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    wide = b"[" + b",".join([b"{}"] * count) + b"]"
    s.write(head + b',"result":{"content":[],"structuredContent":' + wide + b"}}\n")


def _mode_utf8(s: Server, rid: Any, name: str, args: Json) -> None:
    head = json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    s.write(head + b',"result":{"content":[{"type":"text","text":"bad \xff\xfe\xc3"}]}}\n')


_HANDLERS: dict[str, Callable[[Server, Any, str, Json], None]] = {
    "echo": _tool_echo,
    "search": _tool_search,
    "pid": _tool_pid,
    "env": _tool_env,
    "stats": _tool_stats,
    "sleep": _tool_sleep,
    "progress": _tool_progress,
    "big": _tool_big,
    "content": _tool_content,
    "fail": _tool_fail,
    "crash": _tool_crash,
    "add_tool": _tool_add,
    "remove_tool": _tool_remove,
    "spawn_grandchild": _tool_grandchild,
    "hang": _mode_hang,
    "stubborn": _mode_hang,
    "flood": _mode_flood,
    "huge-line": _mode_huge,
    "id-last": _mode_id_last,
    "deep-json": _mode_deep,
    "wide-json": _mode_wide,
    "invalid-utf8": _mode_utf8,
}


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
