"""A tools/list answer whose one tool schema nests too deep must cost that tool, not the listing.

The SDK's JSON parser refuses a whole message nested deeper than about 200 levels, so one
hostile schema would fail every tool of the server. Before the SDK parses a tools/list answer
that could be that deep, we parse it with the standard library (which goes deeper), replace
each schema nested deeper than the listing bound by a refusal marker, and hand on the result;
the listing then skips only those tools, with a warning.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_SCHEMA_DEPTH", "REFUSED_KEY", "depth", "shallow_tools"]

MAX_SCHEMA_DEPTH = 64
REFUSED_KEY = "x-prism-mcp-refused"
_MIN_CONTAINERS = 128  # fewer ``{``/``[`` than this cannot nest too deep for the SDK


def depth(value: Any, limit: int = MAX_SCHEMA_DEPTH) -> int:
    """Nesting depth of a JSON value, iteratively; stops counting once past ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item)
        if deepest > limit:
            break
    return deepest


def _prune(tools: list[Any]) -> bool:
    changed = False
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            if isinstance(schema, (dict, list)) and depth(schema) > MAX_SCHEMA_DEPTH:
                reason = f"its {key} nests deeper than {MAX_SCHEMA_DEPTH} levels"
                tool[key] = {"type": "object", REFUSED_KEY: reason}
                changed = True
    return changed


def shallow_tools(data: bytes | bytearray) -> bytes | None:
    """``data`` with over-deep tool schemas replaced, or ``None`` when nothing needs replacing."""
    if data.count(b"{") + data.count(b"[") < _MIN_CONTAINERS:
        return None
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return None
    result = message.get("result") if isinstance(message, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list) or not _prune(tools):
        return None
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
