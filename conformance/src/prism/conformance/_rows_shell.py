"""Conformance rows E3 and E4 (owned by prism-coding-tools): a shell command's process tree
dies on timeout and abort, and its output stays bounded however much it prints."""

from __future__ import annotations

import os
import re
import tempfile
import time
import uuid
from typing import TYPE_CHECKING

from prism.core import AbortController, ToolResult, render_tool_result
from prism.core.testing import scaled

from ._coding_kit import MIB, call_tool, coding_tools, discard, spill_path
from ._process_probes import alive, peak_rss_growth, pids_with
from ._registry import conformance_row

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

__all__ = ["flood_marker"]


# ----------------------------------------------------------------------------- row E3

_DAEMON = (
    "(setsid sh -c 'echo grandchild=$$; exec sleep 600' &); "
    "echo child=$$; echo shell-tree-ready; exec sleep 600"
)


@conformance_row("E3")
async def shell_timeout_and_abort_kill_the_tree(subjects: ConformanceSubjects) -> None:
    import anyio

    with tempfile.TemporaryDirectory() as cwd:
        shell = coding_tools(subjects, cwd)["shell"]
        settle = scaled(1.5)  # time for the tree to start and print its pids
        started = time.monotonic()
        result = await call_tool(subjects, shell, {"command": _DAEMON, "timeout": settle})
        _assert_tree_gone(result, "timeout", time.monotonic() - started, settle)

        controller = AbortController()
        outcome: list[ToolResult] = []

        async def run() -> None:
            outcome.append(
                await call_tool(subjects, shell, {"command": _DAEMON}, signal=controller.signal)
            )

        started = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(run)
            await anyio.sleep(settle)
            controller.abort("conformance abort")
        _assert_tree_gone(outcome[0], "abort", time.monotonic() - started, settle)


def _assert_tree_gone(result: ToolResult, how: str, elapsed: float, after: float) -> None:
    text = f"{render_tool_result(result)}\n{result!r}"
    if not result.is_error:
        raise AssertionError(f"a shell command stopped by {how} returned a success result")
    if "shell-tree-ready" not in render_tool_result(result):
        raise AssertionError(f"the {how} error result does not carry the output tail")
    pids = [int(p) for p in re.findall(r"(?:grand)?child=(\d+)", text)]
    if len(pids) < 2:
        raise AssertionError(f"expected child and grandchild pids in the tail, got {text[:300]!r}")
    survivors = [pid for pid in pids if alive(pid)]
    for pid in survivors:
        os.kill(pid, 9)  # leave the machine clean before failing
    if survivors:
        raise AssertionError(f"after {how}, processes of the command tree survive: {survivors}")
    if elapsed > after + scaled(15):
        raise AssertionError(f"the call returned {elapsed:.1f}s after start on {how}: not prompt")


# ----------------------------------------------------------------------------- row E4


def flood_marker() -> str:
    """A fresh marker naming this process: only floods this process started carry it."""
    return f"prism-flood-{os.getpid()}-{uuid.uuid4().hex}"


@conformance_row("E4")
async def shell_output_flood(subjects: ConformanceSubjects) -> None:
    from prism.coding_tools import ShellOptions

    total = 200_000_000
    with tempfile.TemporaryDirectory() as cwd:
        tools = coding_tools(subjects, cwd, shell=ShellOptions(max_total_output_bytes=256 * MIB))
        command = f"yes 'prism output flood line 0123456789' | head -c {total}"
        with peak_rss_growth() as growth:
            result = await call_tool(subjects, tools["shell"], {"command": command})
            grew = growth()
        spill = spill_path(result)
        try:
            _check_flood(result, spill, total, grew)
        finally:
            discard(spill)

        limit = 4 * MIB
        marker = flood_marker()
        tools = coding_tools(subjects, cwd, shell=ShellOptions(max_total_output_bytes=limit))
        started = time.monotonic()
        result = await call_tool(subjects, tools["shell"], {"command": f"exec yes {marker}"})
        spill = spill_path(result)
        try:
            _check_hard_stop(result, spill, limit, marker, time.monotonic() - started)
        finally:
            discard(spill)


def _check_flood(result: ToolResult, spill: str | None, total: int, growth: int) -> None:
    if result.is_error:
        raise AssertionError(f"200 MB of output under the limit failed: {result.error}")
    if growth > 64 * MIB:
        raise AssertionError(f"peak memory grew by {growth / MIB:.0f} MiB for 200 MB of output")
    text = render_tool_result(result)
    if "prism output flood line" not in text or len(text) > 2 * MIB:
        raise AssertionError(f"the result does not carry a bounded tail ({len(text):,} chars)")
    if spill is None:
        raise AssertionError("no full-output file named in the result for truncated output")
    mode = os.stat(spill).st_mode & 0o777
    if mode != 0o600:
        raise AssertionError(f"the full-output file has mode {oct(mode)}, expected 0o600")
    if (size := os.path.getsize(spill)) != total:
        raise AssertionError(f"the full-output file holds {size:,} bytes, expected {total:,}")


def _check_hard_stop(
    result: ToolResult, spill: str | None, limit: int, marker: str, elapsed: float
) -> None:
    survivors = pids_with(marker)
    for pid in survivors:
        os.kill(pid, 9)
    if not result.is_error:
        raise AssertionError("endless output was not stopped with an error result")
    if survivors:
        raise AssertionError(f"the flooding process survived the output limit: {survivors}")
    if marker not in render_tool_result(result):
        raise AssertionError("the output-limit error result does not carry the tail")
    if spill is not None and os.path.getsize(spill) > limit:
        raise AssertionError(f"the full-output file passed max_total_output_bytes ({limit:,})")
    if elapsed > scaled(30):
        raise AssertionError(f"stopping at the output limit took {elapsed:.1f}s")
