"""Conformance rows owned by prism-coding-tools: 15, E3, E4, E5, E6.

Checks import ``prism.coding_tools`` lazily (for its option classes) and build the tools with
``subjects.coding_tools_factory(cwd, **options)``; calls go through ``subjects.dispatch``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism.core import (
    AbortController,
    AbortSignal,
    ExecutionAction,
    ExecutionDecision,
    ImageContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
    create_tool_registry,
    render_tool_result,
)
from prism.core.testing import scaled

from ._registry import conformance_row, require

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

_MIB = 1024 * 1024
_PNG_SIGNATURE_B64 = "iVBORw0KGgo"  # base64 of the PNG signature: the start of any PNG's base64
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{512,}")


# ----------------------------------------------------------------------------- helpers


def _tools(subjects: ConformanceSubjects, cwd: str, **options: Any) -> dict[str, ToolDefinition]:
    factory = require(subjects.coding_tools_factory, "coding tools (prism-coding-tools)")
    return {tool.name: tool for tool in factory(cwd, **options)}


async def _call(
    subjects: ConformanceSubjects,
    tool: ToolDefinition,
    arguments: Mapping[str, Any],
    *,
    signal: AbortSignal | None = None,
    call_id: str = "call-1",
) -> ToolResult:
    context = ToolExecutionContext(
        session_id="conformance-session",
        run_id="conformance-run",
        tool_call_id=call_id,
        signal=signal if signal is not None else AbortController().signal,
    )
    call = ToolCall(id=call_id, name=tool.name, arguments=dict(arguments))
    return await subjects.dispatch(call, registry=create_tool_registry([tool]), context=context)


def _png(size: int) -> bytes:
    """A still PNG header (signature + IHDR) padded with an IDAT chunk to ``size`` bytes."""
    ihdr = (13).to_bytes(4, "big") + b"IHDR" + b"\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0" + b"\0" * 4
    head = b"\x89PNG\r\n\x1a\n" + ihdr
    body = max(0, size - len(head) - 12)
    return head + body.to_bytes(4, "big") + b"IDAT" + b"\x5a" * body + b"\0" * 4


def _put(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _snapshot(path: Path) -> tuple[bytes, int] | None:
    """Content and mtime of a file; ``None`` if absent, ``(b"", 0)`` for a directory."""
    try:
        return path.read_bytes(), path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b"", 0


def _discard(path: str | None) -> None:
    if path:
        Path(path).unlink(missing_ok=True)


def _proc_number(path: str, field: bytes) -> int | None:
    """A numeric field of a ``/proc`` status-style file (``None`` off Linux)."""
    try:
        with open(path, "rb") as f:
            return next((int(ln.split()[1]) for ln in f if ln.startswith(field + b":")), None)
    except OSError:
        return None


def _alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def _pids_with(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for pid in (int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read() and _alive(pid):
                    found.append(pid)
        except OSError:
            continue
    return found


class _RecordingPolicy:
    """Allows everything and records each action it is asked about."""

    def __init__(self) -> None:
        self.actions: list[ExecutionAction] = []

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        self.actions.append(action)
        return ExecutionDecision(allowed=True)


_AUDIT_EVENTS = frozenset(
    {"open", "os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "os.chmod",
     "os.listdir", "os.scandir", "os.truncate", "os.utime", "shutil.copyfile"}
)  # fmt: skip
_audit_sink: list[tuple[str, str]] | None = None
_audit_prefix = ""
_audit_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    sink = _audit_sink
    if sink is None or event not in _AUDIT_EVENTS or not args:
        return
    target = args[0]
    if isinstance(target, bytes):
        target = os.fsdecode(target)
    if isinstance(target, str | os.PathLike) and os.fspath(target).startswith(_audit_prefix):
        sink.append((event, os.fspath(target)))


@contextmanager
def _filesystem_audit(prefix: str) -> Iterator[list[tuple[str, str]]]:
    """Record file-system audit events (PEP 578) on paths under ``prefix``."""
    global _audit_sink, _audit_prefix, _audit_installed
    prefix = os.path.realpath(prefix)
    if not _audit_installed:
        sys.addaudithook(_audit)  # permanent, but inert while no sink is set
        _audit_installed = True
    events: list[tuple[str, str]] = []
    _audit_sink, _audit_prefix = events, prefix
    try:
        yield events
    finally:
        _audit_sink = None


@contextmanager
def _peak_rss_growth() -> Iterator[list[int]]:
    """Yields a list that receives this process's peak resident-set growth in bytes."""
    out: list[int] = []
    base = _proc_number("/proc/self/status", b"VmRSS") or 0
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the high-water mark (VmHWM) to the current RSS
    try:
        yield out
    finally:
        peak = _proc_number("/proc/self/status", b"VmHWM") or 0
        out.append(max(0, peak - base) * 1024)


def _spill_path(result: ToolResult) -> str | None:
    path: object = result.metadata.get("full_output_path")
    if isinstance(path, str):
        return path
    found = re.findall(r"(/[^\s\]\)]+)", render_tool_result(result))
    return next((str(c) for c in found if os.path.isfile(c)), None)


# ----------------------------------------------------------------------------- row 15


@conformance_row("15")
async def image_over_max_image_bytes(subjects: ConformanceSubjects) -> None:
    from prism.coding_tools import ReadOptions, TransformImageInput

    limit = 256 * 1024
    with tempfile.TemporaryDirectory() as cwd:
        _put(Path(cwd, "big.dat"), _png(16 * limit))  # a PNG by content, not by name
        _put(Path(cwd, "small.png"), _png(4096))
        tools = _tools(subjects, cwd, read=ReadOptions(max_image_bytes=limit))
        # Control, and warm-up: lazy imports read files too and must not count below.
        control = await _call(subjects, tools["read"], {"path": "small.png"})
        if not any(isinstance(block, ImageContent) for block in control.content):
            raise AssertionError(f"a small PNG was not returned as an image: {control.error}")
        before = _proc_number("/proc/self/io", b"rchar")
        result = await _call(subjects, tools["read"], {"path": "big.dat"})
        after = _proc_number("/proc/self/io", b"rchar")
        _assert_refused_without_base64(result, "an image over max_image_bytes")
        if before is not None and after is not None and after - before >= limit:
            raise AssertionError(
                f"reading an oversize image consumed {after - before:,} bytes of input; the "
                "size must be refused from stat, without reading the image"
            )

        calls: list[TransformImageInput] = []

        def grow(image: TransformImageInput) -> bytes:
            calls.append(image)
            return _png(2 * limit)

        tools = _tools(subjects, cwd, read=ReadOptions(max_image_bytes=limit, transform_image=grow))
        result = await _call(subjects, tools["read"], {"path": "small.png"})
        if not calls:
            raise AssertionError("transform_image was never called for a readable image")
        _assert_refused_without_base64(result, "a transform_image output over max_image_bytes")


def _assert_refused_without_base64(result: ToolResult, what: str) -> None:
    if not result.is_error:
        raise AssertionError(f"{what} was not refused: got a successful result")
    if any(isinstance(block, ImageContent) for block in result.content):
        raise AssertionError(f"the error result for {what} still carries an image block")
    text = f"{render_tool_result(result)}\n{result!r}"
    if _PNG_SIGNATURE_B64 in text or _BASE64_RUN.search(text):
        raise AssertionError(f"the error result for {what} contains base64 image data")


# ----------------------------------------------------------------------------- row E3

_DAEMON = (
    "(setsid sh -c 'echo grandchild=$$; exec sleep 600' &); "
    "echo child=$$; echo shell-tree-ready; exec sleep 600"
)


@conformance_row("E3")
async def shell_timeout_and_abort_kill_the_tree(subjects: ConformanceSubjects) -> None:
    import anyio

    with tempfile.TemporaryDirectory() as cwd:
        shell = _tools(subjects, cwd)["shell"]
        settle = scaled(1.5)  # time for the tree to start and print its pids
        started = time.monotonic()
        result = await _call(subjects, shell, {"command": _DAEMON, "timeout": settle})
        _assert_tree_gone(result, "timeout", time.monotonic() - started, settle)

        controller = AbortController()
        outcome: list[ToolResult] = []

        async def run() -> None:
            outcome.append(
                await _call(subjects, shell, {"command": _DAEMON}, signal=controller.signal)
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
    survivors = [pid for pid in pids if _alive(pid)]
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
        tools = _tools(subjects, cwd, shell=ShellOptions(max_total_output_bytes=256 * _MIB))
        command = f"yes 'prism output flood line 0123456789' | head -c {total}"
        with _peak_rss_growth() as growth:
            result = await _call(subjects, tools["shell"], {"command": command})
        spill = _spill_path(result)
        try:
            _check_flood(result, spill, total, growth[0])
        finally:
            _discard(spill)

        limit = 4 * _MIB
        marker = flood_marker()
        tools = _tools(subjects, cwd, shell=ShellOptions(max_total_output_bytes=limit))
        started = time.monotonic()
        result = await _call(subjects, tools["shell"], {"command": f"exec yes {marker}"})
        spill = _spill_path(result)
        try:
            _check_hard_stop(result, spill, limit, marker, time.monotonic() - started)
        finally:
            _discard(spill)


def _check_flood(result: ToolResult, spill: str | None, total: int, growth: int) -> None:
    if result.is_error:
        raise AssertionError(f"200 MB of output under the limit failed: {result.error}")
    if growth > 64 * _MIB:
        raise AssertionError(f"peak memory grew by {growth / _MIB:.0f} MiB for 200 MB of output")
    text = render_tool_result(result)
    if "prism output flood line" not in text or len(text) > 2 * _MIB:
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
    survivors = _pids_with(marker)
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


# ----------------------------------------------------------------------------- row E5


@conformance_row("E5")
async def concurrent_edits_of_one_file(subjects: ConformanceSubjects) -> None:
    import anyio

    count = 24
    with tempfile.TemporaryDirectory() as cwd:
        target = _put(Path(cwd, "shared.txt"), "".join(f"line {i}: old\n" for i in range(count)))
        edit = _tools(subjects, cwd)["edit"]
        results: dict[int, ToolResult] = {}
        torn: list[str] = []
        done = anyio.Event()

        async def change(i: int) -> None:
            arguments = {"path": "shared.txt", "edits": [
                {"old_text": f"line {i}: old\n", "new_text": f"line {i}: new\n"}]}  # fmt: skip
            results[i] = await _call(subjects, edit, arguments, call_id=f"edit-{i}")

        async def watch() -> None:
            while not done.is_set():
                lines = (_snapshot(target) or (b"", 0))[0].decode().splitlines()
                ok = len(lines) == count and all(
                    line in (f"line {i}: old", f"line {i}: new") for i, line in enumerate(lines)
                )
                if not ok:
                    torn.append("\n".join(lines[:3]))
                await anyio.sleep(0.001)

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            async with anyio.create_task_group() as editors:
                for i in range(count):
                    editors.start_soon(change, i)
            done.set()
        failed = {i: r.error for i, r in results.items() if r.is_error}
        if failed:
            raise AssertionError(f"concurrent edits failed: {failed}")
        final = (_snapshot(target) or (b"", 0))[0].decode()
        lost = [i for i in range(count) if f"line {i}: new\n" not in final]
        if lost:
            raise AssertionError(f"lost updates: edits {lost} are missing from the file")
        if torn:
            raise AssertionError(f"a reader saw a half-written file: {torn[0]!r}")


# ----------------------------------------------------------------------------- row E6


@conformance_row("E6")
async def oversize_write_and_edit_input(subjects: ConformanceSubjects) -> None:
    from prism.coding_tools import EditOptions, WriteOptions

    limit = 1024
    text = "é" * 600  # 600 characters but 1,200 bytes of UTF-8
    with tempfile.TemporaryDirectory() as cwd:
        existing = _put(Path(cwd, "target.txt"), "hello\n")
        before = _snapshot(existing)
        policy = _RecordingPolicy()
        tools = _tools(
            subjects,
            cwd,
            execution_policy=policy,
            write=WriteOptions(max_input_bytes=limit),
            edit=EditOptions(max_input_bytes=limit),
        )
        with _filesystem_audit(cwd) as events:
            wrote = await _call(
                subjects, tools["write"], {"path": "new-dir/sub/file.txt", "content": text}
            )
            edited = await _call(
                subjects,
                tools["edit"],
                {"path": "target.txt", "edits": [{"old_text": "hello", "new_text": text}]},
            )
        for name, result in (("write", wrote), ("edit", edited)):
            if not result.is_error:
                raise AssertionError(f"{name} accepted {len(text.encode()):,} bytes over {limit}")
        if policy.actions:
            raise AssertionError(
                f"the execution policy was asked before the size check: {policy.actions}"
            )
        if events:
            raise AssertionError(f"oversize input touched the file system first: {events[:5]}")
        if _snapshot(Path(cwd, "new-dir")) is not None:
            raise AssertionError("an oversize write created parent directories")
        if _snapshot(existing) != before:
            raise AssertionError("an oversize edit changed the file")
