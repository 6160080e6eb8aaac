"""Conformance rows owned by prism-coding-tools: 15, E5, E6 (E3 and E4 are in ``_rows_shell``).

Checks import ``prism.coding_tools`` lazily (for its option classes) and build the tools with
``subjects.coding_tools_factory(cwd, **options)``; calls go through ``subjects.dispatch``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism.core import (
    ExecutionAction,
    ExecutionDecision,
    ImageContent,
    ToolResult,
    render_tool_result,
)

from ._coding_kit import call_tool, coding_tools
from ._process_probes import proc_number
from ._registry import conformance_row

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

_PNG_SIGNATURE_B64 = "iVBORw0KGgo"  # base64 of the PNG signature: the start of any PNG's base64
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{512,}")


# ----------------------------------------------------------------------------- helpers


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


# ----------------------------------------------------------------------------- row 15


@conformance_row("15")
async def image_over_max_image_bytes(subjects: ConformanceSubjects) -> None:
    from prism.coding_tools import ReadOptions, TransformImageInput

    limit = 256 * 1024
    with tempfile.TemporaryDirectory() as cwd:
        _put(Path(cwd, "big.dat"), _png(16 * limit))  # a PNG by content, not by name
        _put(Path(cwd, "small.png"), _png(4096))
        tools = coding_tools(subjects, cwd, read=ReadOptions(max_image_bytes=limit))
        # Control, and warm-up: lazy imports read files too and must not count below.
        control = await call_tool(subjects, tools["read"], {"path": "small.png"})
        if not any(isinstance(block, ImageContent) for block in control.content):
            raise AssertionError(f"a small PNG was not returned as an image: {control.error}")
        before = proc_number("/proc/self/io", b"rchar")
        result = await call_tool(subjects, tools["read"], {"path": "big.dat"})
        after = proc_number("/proc/self/io", b"rchar")
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

        tools = coding_tools(
            subjects, cwd, read=ReadOptions(max_image_bytes=limit, transform_image=grow)
        )
        result = await call_tool(subjects, tools["read"], {"path": "small.png"})
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


# ----------------------------------------------------------------------------- row E5


@conformance_row("E5")
async def concurrent_edits_of_one_file(subjects: ConformanceSubjects) -> None:
    import anyio

    count = 24
    with tempfile.TemporaryDirectory() as cwd:
        target = _put(Path(cwd, "shared.txt"), "".join(f"line {i}: old\n" for i in range(count)))
        edit = coding_tools(subjects, cwd)["edit"]
        results: dict[int, ToolResult] = {}
        torn: list[str] = []
        done = anyio.Event()

        async def change(i: int) -> None:
            arguments = {"path": "shared.txt", "edits": [
                {"old_text": f"line {i}: old\n", "new_text": f"line {i}: new\n"}]}  # fmt: skip
            results[i] = await call_tool(subjects, edit, arguments, call_id=f"edit-{i}")

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
        tools = coding_tools(
            subjects,
            cwd,
            execution_policy=policy,
            write=WriteOptions(max_input_bytes=limit),
            edit=EditOptions(max_input_bytes=limit),
        )
        with _filesystem_audit(cwd) as events:
            wrote = await call_tool(
                subjects, tools["write"], {"path": "new-dir/sub/file.txt", "content": text}
            )
            edited = await call_tool(
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
