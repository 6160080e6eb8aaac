"""The pinned official MCP conformance suite, installed into a cache outside the repository.

Shared by the client and server conformance tests: ``scripts/mcp-conformance-setup.py`` installs
Node 22 and the suite on first use; the caller skips only when npm is unreachable (exit 3).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]


def install_suite(install: Callable[..., tuple[Any, Path]], suite: str) -> tuple[Path, Path]:
    """(node 22 binary, entry point of the ``stable`` or ``alpha`` suite), installed by the
    workspace's ``mcp_node_tooling`` fixture (``install``)."""
    setup, root = install("--suite", suite, what="the MCP conformance suite")
    node, entry = setup.paths(root)
    return Path(node), Path(entry)


def listed_scenarios(suite: tuple[Path, Path], part: str) -> tuple[str, ...]:
    """The scenario names the suite's ``list`` prints under ``part`` ("Server" or "Client")."""
    node, entry = suite
    listed = subprocess.run(
        [str(node), str(entry), "list"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    section = listed.split(f"{part} scenarios", 1)[1].split("scenarios (", 1)[0]
    return tuple(line.split()[1] for line in section.splitlines() if line.strip().startswith("- "))


def node_env(suite: tuple[Path, Path]) -> dict[str, str]:
    """The environment with the suite's Node first on ``PATH``."""
    return {**os.environ, "PATH": f"{suite[0].parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def failed_checks(out: Path) -> list[dict[str, Any]]:
    """Every FAILURE or WARNING check the suite wrote under ``out`` (none when it wrote none)."""
    checks: list[dict[str, Any]] = []
    for path in out.rglob("checks.json"):
        checks.extend(json.loads(path.read_text()))
    return [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]


def all_checks(out: Path) -> list[dict[str, Any]]:
    """Every check the suite wrote under ``out``."""
    checks: list[dict[str, Any]] = []
    for path in out.rglob("checks.json"):
        checks.extend(json.loads(path.read_text()))
    return checks


SERVER = ROOT / "scripts" / "mcp-conformance-server.py"


@contextlib.contextmanager
def conformance_server(port: int) -> Iterator[str]:
    """``scripts/mcp-conformance-server.py`` on 127.0.0.1:``port``; its group is killed after."""
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


def _judge(
    scenario: str,
    done: subprocess.CompletedProcess[str],
    out: Path,
    unsupported: dict[str, str],
) -> None:
    """A scenario passed when the suite exited 0 with checks and none failed; an ``unsupported``
    one must not pass (then it belongs off the list and out of the docs)."""
    checks = all_checks(out)
    failed = failed_checks(out)
    passed = done.returncode == 0 and not failed and bool(checks)
    if scenario in unsupported:
        assert not passed, f"{scenario} now passes: remove it from UNSUPPORTED and the docs"
        return
    detail = "\n".join(
        f"{c.get('id')}: {c.get('status')} {c.get('errorMessage', '')}" for c in failed
    )
    assert passed, f"{scenario} failed (exit {done.returncode}):\n{detail}\n{done.stderr[-3000:]}"


def run_server_scenarios(suite: tuple[Path, Path], url: str, out: Path) -> str:
    """Run every server scenario of ``suite`` (``--suite all``) in one Node process, one after
    the other as single runs would, each into its own folder under ``out``; the suite's stderr.

    One process instead of one per scenario: starting Node and the suite costs about a second,
    the scenarios a few seconds in all.
    """
    node, entry = suite
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(node), str(entry), "server", "--url", url, "--suite", "all", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        env=node_env(suite),
        check=False,
        cwd=out,
    )
    return done.stderr


def check_server_scenario(
    results: Path, scenario: str, unsupported: dict[str, str], stderr: str = ""
) -> None:
    """One scenario of ``run_server_scenarios``: it must pass, or fail when ``unsupported``
    lists it (a scenario with no results folder failed to run)."""
    stamp = re.compile(rf"server-{re.escape(scenario)}-\d{{4}}-\d\d-\d\dT[\d-]+Z")
    folders = [path for path in results.iterdir() if stamp.fullmatch(path.name)]
    assert len(folders) <= 1, f"{scenario} ran {len(folders)} times: {folders}"
    checks = all_checks(folders[0]) if folders else []
    failed = failed_checks(folders[0]) if folders else []
    passed = not failed and bool(checks)
    if scenario in unsupported:
        assert not passed, f"{scenario} now passes: remove it from UNSUPPORTED and the docs"
        return
    detail = "\n".join(
        f"{c.get('id')}: {c.get('status')} {c.get('errorMessage', '')}" for c in failed
    )
    assert folders, f"{scenario} did not run:\n{stderr[-3000:]}"
    assert passed, f"{scenario} failed:\n{detail}"


CLIENT = ROOT / "scripts" / "mcp-conformance-client.py"


def check_client_scenario(
    suite: tuple[Path, Path], scenario: str, tmp_path: Path, unsupported: dict[str, str]
) -> None:
    """Let the suite drive ``scripts/mcp-conformance-client.py`` through one client scenario;
    it must pass, or fail when ``unsupported`` lists it."""
    node, entry = suite
    wrapper = tmp_path / "client"  # the suite splits --command on spaces; this path has none
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{CLIENT}" "$@"\n')
    wrapper.chmod(0o755)
    command = [str(node), str(entry), "client", "--command", str(wrapper), "--scenario", scenario]
    done = subprocess.run(
        [*command, "--timeout", "45000", "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        env=node_env(suite),
        check=False,
        cwd=tmp_path,
    )
    _judge(scenario, done, tmp_path / "out", unsupported)
