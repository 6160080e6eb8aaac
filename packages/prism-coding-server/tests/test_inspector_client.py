"""A third-party client: the official MCP Inspector CLI drives ``prism-coding-server`` over stdio.

``scripts/mcp-conformance-setup.py`` installs Node 22 and the pinned
``@modelcontextprotocol/inspector-cli`` into a cache outside the repository; the test skips only
when npm is unreachable. Each Inspector run is one real Node client spawning one real server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
RUN_SECONDS = 90

pytestmark = pytest.mark.slow


class Inspector:
    """Runs ``inspector-cli <server command> --method ...`` and parses the JSON it prints."""

    def __init__(self, node: Path, entry: Path, root: Path) -> None:
        self.node, self.entry = node, entry
        self.server = [sys.executable, "-m", "prism.coding_server", "--root", str(root),
                       "--no-sandbox"]  # fmt: skip

    def run(self, method: str, *extra: str) -> dict[str, Any]:
        command = [str(self.node), str(self.entry), *self.server, "--method", method, *extra]
        # The CLI finds its own package.json relative to the cwd: run it from its directory.
        done = subprocess.run(
            command, cwd=self.entry.parent, capture_output=True, text=True,
            timeout=RUN_SECONDS, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{method} {extra}: {done.stderr[-2000:]}"
        answer = json.loads(done.stdout)
        assert isinstance(answer, dict)
        return answer

    def call(self, tool: str, **arguments: str) -> dict[str, Any]:
        pairs = [f"{key}={value}" for key, value in arguments.items()]
        return self.run("tools/call", "--tool-name", tool, "--tool-arg", *pairs)


def refused(answer: dict[str, Any]) -> str:
    """The governed refusal's text; fails unless it is an error with Prism's denial code."""
    assert answer.get("isError") is True, answer
    assert answer["_meta"]["dev.prism/error"]["code"] == "execution_denied", answer
    return " ".join(block["text"] for block in answer["content"] if block["type"] == "text")


@pytest.fixture(scope="module")
def inspector_cli(mcp_node_tooling: Callable[..., tuple[Any, Path]]) -> tuple[Path, Path]:
    """(node 22 binary, Inspector CLI entry point), installed into the cache on first use."""
    setup, cache = mcp_node_tooling(what="the MCP Inspector CLI")
    node, _ = setup.paths(cache)
    return Path(node), Path(setup.inspector_path(cache))


def test_the_inspector_lists_and_calls_tools_and_refusals_are_governed(
    inspector_cli: tuple[Path, Path], tmp_path: Path
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "hello.txt").write_text("hello from the inspector test\n")
    inspector = Inspector(*inspector_cli, root)
    canary = outside / "canary.txt"
    runs = {
        "list": lambda: inspector.run("tools/list"),
        "read": lambda: inspector.call("read", path="hello.txt"),
        "write_inside": lambda: inspector.call("write", path="new.txt", content="written"),
        "write_absolute": lambda: inspector.call("write", path=str(canary), content="pwned"),
        "write_dotdot": lambda: inspector.call("write", path="../outside/canary.txt", content="x"),
        "shell_outside": lambda: inspector.call("shell", command=f"echo pwned > {canary}"),
        "shell_rm": lambda: inspector.call("shell", command="rm -rf /"),
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(run) for name, run in runs.items()}
        answers = {name: future.result(timeout=4 * RUN_SECONDS) for name, future in futures.items()}

    tools = {tool["name"]: tool for tool in answers["list"]["tools"]}
    assert sorted(tools) == ["edit", "read", "shell", "write"]
    for tool in tools.values():
        assert tool["inputSchema"]["type"] == "object" and tool["description"]
    assert tools["read"]["inputSchema"]["required"] == ["path"]
    assert set(tools["write"]["inputSchema"]["required"]) == {"path", "content"}
    assert tools["shell"]["inputSchema"]["properties"]["command"]["type"] == "string"
    assert tools["read"]["annotations"]["readOnlyHint"] is True
    assert tools["write"]["annotations"]["destructiveHint"] is True

    read = answers["read"]
    assert read.get("isError") is False
    assert read["content"][0] == {"type": "text", "text": "hello from the inspector test"}
    assert answers["write_inside"].get("isError") is False
    assert (root / "new.txt").read_text() == "written"

    for name in ("write_absolute", "write_dotdot", "shell_outside"):
        assert "outside" in refused(answers[name]), name
    assert "destructive" in refused(answers["shell_rm"])
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in root.iterdir()) == ["hello.txt", "new.txt"]
