"""What each tool and hostile mode of the stdlib MCP server in ``_hostile_mcp`` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._hostile_mcp import Server

__all__ = ["HANDLERS", "JUNK", "MB", "Json", "schema", "tool_default"]

Json = dict[str, Any]
MB = 1 << 20
JUNK = (b"this is not json\n", b'{"hello": "valid JSON, not JSON-RPC"}\n', b"\x00\xff\xfe\n")
"""Lines that are not JSON-RPC, for the ``flood`` and ``garbage`` modes."""


def schema(**props: str) -> Json:
    """An object input schema with one property per keyword (``name="type"``)."""
    return {"type": "object", "properties": {k: {"type": t} for k, t in props.items()}}


# -- tool behaviours -----------------------------------------------------------------------


def tool_default(s: Server, rid: Any, name: str, args: Json) -> None:
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
    s.tools.append((added, "Added at runtime.", schema(query="string")))
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
    block = b"".join(JUNK) * 64 + note + b'{"jsonrpc":"2.0","id":"srv-%d","method":"ping"}\n'
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
    count = max(1, min(s.args.size, 16 * MB) // 3)
    head = json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    wide = b"[" + b",".join([b"{}"] * count) + b"]"
    s.write(head + b',"result":{"content":[],"structuredContent":' + wide + b"}}\n")


def _mode_utf8(s: Server, rid: Any, name: str, args: Json) -> None:
    head = json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    s.write(head + b',"result":{"content":[{"type":"text","text":"bad \xff\xfe\xc3"}]}}\n')


HANDLERS: dict[str, Callable[[Server, Any, str, Json], None]] = {
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
