"""The official MCP conformance suite's server scenarios against ``serve_tools``.

``scripts/mcp-conformance-server.py`` serves the tools the scenarios call from a Prism registry
behind ``McpToolServer`` (Streamable HTTP on a free 127.0.0.1 port). Every server scenario of
the pinned suite runs, one at a time; each must pass unless ``UNSUPPORTED`` names it with the
reason, which docs/mcp.md repeats. Skipped only when npm is unreachable.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conformance_suite import (
    ROOT,
    all_checks,
    failed_checks,
    install_suite,
    listed_scenarios,
    node_env,
)
from .conftest import free_port

SERVER = ROOT / "scripts" / "mcp-conformance-server.py"

SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
)
"""Every server scenario of @modelcontextprotocol/conformance 0.1.16 (checked against ``list``)."""

_NO_RESOURCES = "a tool server offers no resources; Prism serves a tool registry only"
_NO_PROMPTS = "a tool server offers no prompts; Prism serves a tool registry only"
UNSUPPORTED: dict[str, str] = {
    "completion-complete": (
        "argument completion is for prompts and resource templates (none served)"
    ),
    "tools-call-sampling": (
        "served tools cannot call the client's model; a tool sees only its arguments and "
        "execution context, so it cannot spend the user's model budget"
    ),
    "server-sse-polling": (
        "needs a tool that closes its own SSE stream mid-call and an event store to resume it "
        "(SEP-1699); the server keeps each call on one stream and stores no events"
    ),
    **{name: _NO_RESOURCES for name in SCENARIOS if name.startswith("resources-")},
    **{name: _NO_PROMPTS for name in SCENARIOS if name.startswith("prompts-")},
}
"""Scenarios Prism deliberately does not pass, with the reason (kept in step with docs/mcp.md)."""


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """(node 22 binary, suite entry point), installed into the cache on first use."""
    return install_suite()


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The conformance server on a free 127.0.0.1 port; its process group is killed after."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, "the conformance server exited"
            assert time.monotonic() < deadline, "the conformance server did not listen in 30 s"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def test_the_scenario_list_is_the_suites(suite: tuple[Path, Path]) -> None:
    assert listed_scenarios(suite, "Server") == SCENARIOS


def test_every_unsupported_scenario_is_a_suite_scenario() -> None:
    assert set(UNSUPPORTED) <= set(SCENARIOS)
    assert all(reason.strip() for reason in UNSUPPORTED.values())


@pytest.mark.timeout(90)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_server_scenario(
    suite: tuple[Path, Path], server_url: str, scenario: str, tmp_path: Path
) -> None:
    node, entry = suite
    done = subprocess.run(
        [str(node), str(entry), "server", "--url", server_url, "--scenario", scenario,
         "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=75,
        env=node_env(suite),
        check=False,
        cwd=tmp_path,
    )  # fmt: skip
    checks = all_checks(tmp_path / "out")
    failed = failed_checks(tmp_path / "out")
    passed = done.returncode == 0 and not failed and bool(checks)
    if scenario in UNSUPPORTED:
        assert not passed, f"{scenario} now passes: remove it from UNSUPPORTED and the docs"
        return
    detail = "\n".join(
        f"{c.get('id')}: {c.get('status')} {c.get('errorMessage', '')}" for c in failed
    )
    assert passed, f"{scenario} failed (exit {done.returncode}):\n{detail}\n{done.stderr[-3000:]}"
