"""The SDK test server, plus a thread that floods stderr with small writes (a chatty server).

Run: ``python stderr_flood.py`` (stdio). Each write is one 100-byte line, as fast as the pipe
takes them; the last line written before a tool call is ``MARK <n>``.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import sdk_server

LINE = b"e" * 99 + b"\n"


def flood() -> None:
    while True:
        try:
            os.write(2, LINE)
        except OSError:
            return


@sdk_server.mcp.tool()
def mark(n: int) -> str:
    """Write a marker line to stderr."""
    os.write(2, f"MARK {n}\n".encode())
    return "marked"


if __name__ == "__main__":
    threading.Thread(target=flood, daemon=True).start()
    sdk_server.mcp.run("stdio")
